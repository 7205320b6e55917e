/**
 * The reason code a dispatch result is recorded with, one table per kind of result, so every code
 * the Hub can store is spelled out once here and listed in src-shared/states.ts
 * (NOT_SENT_REASON_CODES, OUTCOME_REASON_CODES), where the UI finds its words.
 */
import type { NotSentReasonCode, OutcomeReasonCode } from '../../src-shared/states.js';
import type { SendResult } from '../context.js';

type NotSentReason = Extract<SendResult, { kind: 'not_sent' }>['reason'];
type NoResponseReason = Extract<SendResult, { kind: 'no_response' }>['reason'];

export const NOT_SENT_CODE: Readonly<Record<NotSentReason, NotSentReasonCode>> = {
  invalid_header: 'not_sent_invalid_header',
  invalid_request: 'not_sent_invalid_request',
  dns_failed: 'not_sent_dns_failed',
  connect_refused: 'not_sent_connect_refused',
  connect_failed: 'not_sent_connect_failed',
  connect_timeout: 'not_sent_connect_timeout',
  tls_failed: 'not_sent_tls_failed',
  aborted: 'not_sent_aborted',
  credentials_unavailable: 'not_sent_credentials_unavailable',
  destination_refused: 'not_sent_destination_refused',
  not_connected: 'not_sent_not_connected',
};

export const NO_RESPONSE_CODE: Readonly<Record<NoResponseReason, OutcomeReasonCode>> = {
  timeout: 'no_response_timeout',
  connection_lost: 'no_response_connection_lost',
  aborted: 'no_response_aborted',
  server_exited: 'no_response_server_exited',
};
