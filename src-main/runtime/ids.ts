/** Id and clock sources, injectable so tests and benchmarks can control them. */
import { randomUUID } from 'node:crypto';

export interface IdSource {
  sessionId(): string;
  turnId(): string;
  eventId(): string;
  messageId(): string;
  /** Ids of attachments (optional for older id sources: a random `att_…` id is used then). */
  attachmentId?(): string;
}

export function createIdSource(): IdSource {
  return {
    sessionId: () => `ses_${randomUUID()}`,
    turnId: () => `turn_${randomUUID()}`,
    eventId: () => `evt_${randomUUID()}`,
    messageId: () => `msg_${randomUUID()}`,
    attachmentId: () => `att_${randomUUID()}`,
  };
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
