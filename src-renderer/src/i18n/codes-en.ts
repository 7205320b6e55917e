/**
 * English sentences for the structured codes the renderer is given: `code.<code>` for a call's
 * feedback (the Hub's error and refusal codes — HUB_ERROR_CODES, TASK_REFUSAL_CODES —, the
 * receipt reason codes that become feedback, and the host runtime's own codes), `notice.<code>`
 * for the error codes a turn ends with, `apiError.<code>` for the errors of calls
 * (APP_ERROR_CODES) and `reason.<code>` for why a store or a scope is not usable. The renderer
 * words from these codes only (logic/feedback-text.ts). zh: codes-zh.ts (same keys). Spread into en.ts.
 */
const STORAGE_TEXT =
  'The local invocation journal could not be saved or read. Restore local persistence first (restore_invocations). This is not evidence about whether the business action ran.';

export const enCodes = {
  'feedback.original': 'As reported: ',
  'feedback.outcomeUnknown':
    'The request was sent but no confirmed answer arrived. It may have run. Inspect the original call; do not send it again.',
  'feedback.withCause': '{outcome} Cause: {cause}',

  // The Hub's error codes (src-shared/hub-api.ts HUB_ERROR_CODES).
  'code.invalid_json': 'The request body was not valid JSON.',
  'code.invalid_request': 'The Hub rejected the request as malformed; it was not run.',
  'code.unauthorized': 'The Hub did not accept this app’s credential.',
  'code.forbidden': 'The Hub does not allow this credential to do that.',
  'code.not_found': 'The Hub did not find what was asked for.',
  'code.invocation_not_found':
    'The Hub has no record of this invocation. This does not prove the business action never ran; inspect the original evidence. Do not retry it or reconstruct a new call.',
  'code.task_not_found': 'The Hub has no such task.',
  'code.run_not_found': 'The Hub has no such run; start a new turn.',
  'code.approval_not_found': 'The Hub has no such approval.',
  'code.authorization_not_found': 'The authorization does not exist or is not granted to this app.',
  'code.system_not_found': 'The Hub has no such business system.',
  'code.tool_not_found': 'The tool is not declared for this authorization; search for tools again.',
  'code.body_too_large': 'The request is too large for the Hub.',
  'code.invocation_conflict':
    'An invocation with this id already exists with different arguments; this one was not run.',
  'code.declaration_changed':
    'The tool’s declaration changed, so the call was not sent. Search for tools again before calling it.',
  'code.run_ended': 'The run has ended and accepts no more calls; start a new turn.',
  'code.run_mismatch': 'The run belongs to another authorization or client; start a new turn.',
  'code.authorization_revoked': 'The authorization was revoked; the whole original scope is blocked.',
  'code.authorization_rebound':
    'The authorization changed (it was rebound); the whole original scope is blocked.',
  'code.decision_conflict': 'The approval was already decided differently.',
  'code.task_state_conflict': 'The task cannot move to that state from its current one.',
  'code.spec_invalid': 'The business system’s specification is invalid; the previous one is kept.',
  'code.system_unreachable': 'The business system could not be reached.',
  'code.url_scheme_refused':
    'The business system’s address is refused: only http and https addresses, without a user name or password.',
  'code.insecure_http_refused':
    'Plain http is allowed only to this computer: use https, or the administrator must allow insecure http for this system.',
  'code.destination_refused':
    'The business system’s address is refused: link-local and cloud-metadata addresses are never called.',
  'code.internal_error': 'The Hub hit an internal error.',
  'code.unsupported_media_type': 'The Hub accepts only JSON request bodies.',
  'code.already_exists': 'That id is already taken.',
  'code.too_many_streams': 'This app already has as many live connections to the Hub as it may hold.',
  'code.too_many_auth_failures':
    'Too many failed sign-in attempts came from this address; wait before trying again.',
  'code.uri_too_long': 'The request address was too long for the Hub.',
  'code.headers_too_large': 'The request headers were too large for the Hub.',
  'code.request_timeout': 'The request did not reach the Hub in time; nothing was run.',
  'code.invocation_not_attestable':
    'Only a call whose result is not known (Result needs checking, Unverified) can be settled by what you checked; this one is not open any more.',
  'code.operator_attested': 'Settled by an operator who checked the business system.',
  'code.business_rejected': 'The business system refused the request.',
  'code.business_server_error': 'The business system answered with a server error.',
  'code.no_response_timeout': 'The business system did not answer in time.',
  'code.no_response_connection_lost': 'The connection to the business system was lost before it answered.',
  'code.no_response_aborted': 'The request was stopped before the business system answered.',
  'code.no_response_server_exited': 'The MCP server stopped while the call was in progress; it may have run.',
  'code.lookup_not_found': 'The business system has no record of this request.',
  'code.lookup_unavailable': 'The business system could not be asked about this request.',
  'code.hub_restarted': 'The Hub restarted while this call was in progress.',
  'code.hub_instance_lost': 'The Hub instance handling this call stopped while it was in progress.',
  'code.store_unavailable':
    'The Hub cannot reach its database right now; check the call later (repeating it with the same id never sends it twice).',
  'code.mcp_server_unreachable':
    'The MCP server could not be started or reached, or did not answer in time; nothing was registered.',
  'code.system_kind_mismatch': 'That system is of the other kind (an HTTP system or an MCP server).',
  'code.mcp_tools_invalid':
    'The MCP server’s tool list cannot be governed (too many tools, a malformed schema, a tool named twice or a bad tool name); nothing was registered.',
  'code.system_retired':
    'That business system has been retired (removed) on the Hub: it takes no new calls, and its tools, overlays and authorizations can no longer be changed. Nothing was sent or changed. Registering it again (adding it again under the same id) brings it back.',
  'code.system_has_unresolved_invocations':
    'The system still has calls whose outcome is not final (awaiting approval, running, or needing a check). Resolve them first — that needs the system — then remove it. Nothing changed.',

  // Why the Hub refused a task-bound call a permit (src-shared/states.ts TASK_REFUSAL_CODES).
  'code.task_paused': 'The task is paused; no further calls are dispatched until it continues.',
  'code.task_cancelled': 'The task is cancelled; no further calls are dispatched.',
  'code.task_expired': 'The task has expired; no further calls are dispatched.',
  'code.budget_exhausted': 'The task’s write budget is spent; further writes are refused.',
  'code.in_flight_limit':
    'The task already has as many calls in flight as it allows; wait for one to finish.',
  'code.rate_limited': 'The rate limit is reached; wait before trying again.',
  'code.tool_not_in_task': 'This tool is not allowed in this task.',
  'code.authorization_not_in_task': 'This authorization is not part of this task.',
  'code.constraint_violation': 'The arguments break a constraint of this task.',
  'code.task_required': 'This conversation is enrolled in a task: every call must carry that task.',

  // A call whose request never left the Hub (src-shared/states.ts NOT_SENT_REASON_CODES): not
  // dispatched, nothing spent.
  'code.not_sent_invalid_header':
    'Not sent: the account’s on-behalf-of value cannot travel in an HTTP header. Nothing was sent and nothing was spent; an administrator must rebind the authorization.',
  'code.not_sent_invalid_request':
    'Not sent: the request could not be built from the call’s arguments. Nothing was sent and nothing was spent.',
  'code.not_sent_dns_failed':
    'Not sent: the business system’s host name could not be resolved. Nothing was sent and nothing was spent.',
  'code.not_sent_connect_refused':
    'Not sent: the business system refused the connection. Nothing was sent and nothing was spent.',
  'code.not_sent_connect_failed':
    'Not sent: no connection to the business system could be made. Nothing was sent and nothing was spent.',
  'code.not_sent_connect_timeout':
    'Not sent: the connection to the business system was not established in time. Nothing was sent and nothing was spent.',
  'code.not_sent_tls_failed':
    'Not sent: the secure (TLS) connection to the business system failed. Nothing was sent and nothing was spent.',
  'code.not_sent_aborted':
    'Not sent: the Hub was shutting down before it connected. Nothing was sent and nothing was spent.',
  'code.not_sent_target_missing':
    'Not sent: the business system or authorization is no longer registered. Nothing was sent and nothing was spent.',
  'code.not_sent_store_unavailable':
    'Not sent: the Hub could not read its database just before sending. Nothing was sent and nothing was spent.',
  'code.not_sent_not_connected':
    'Not sent: the MCP server was not connected (it could not be started or reached). Nothing was sent and nothing was spent.',
  'code.not_sent_credentials_unavailable':
    'Not sent: the Hub cannot open this business system’s signing secret with its secret key; the administrator must register the system again. Nothing was sent and nothing was spent.',
  'code.not_sent_destination_refused':
    'Not sent: the business system’s address is refused (a link-local or cloud-metadata address, or plain http to another machine without the administrator’s permission). Nothing was sent and nothing was spent.',

  // Receipt reason codes that reach a card as feedback (not dispatched, resume refused).
  'code.arguments_invalid': 'The arguments do not satisfy the tool’s schema or rules; nothing was sent.',
  'code.approval_mismatch': 'The approval does not cover these exact arguments.',
  'code.not_dispatched': 'The Hub did not dispatch this call.',
  'code.resume_refused': 'The Hub refused to continue this call; its receipt shows the current state.',

  // The host runtime's own codes (src-main/runtime/**, src-main/journal/errors.ts).
  'code.invocation_store_unavailable': STORAGE_TEXT,
  'code.invocation_store_conflict':
    'The local invocation journal was changed by another save (a conflict). Restore local persistence first (restore_invocations). This is not evidence about whether the business action ran.',
  'code.invocation_record_invalid':
    'A local invocation journal record was rejected as invalid. Restore local persistence first (restore_invocations). This is not evidence about whether the business action ran.',
  'code.invocation_record_too_large':
    'A local invocation journal record is too large to save. Restore local persistence first (restore_invocations). This is not evidence about whether the business action ran.',
  'code.invocation_record_corrupt':
    'The stored local invocation journal cannot be read back. Restore local persistence first (restore_invocations). This is not evidence about whether the business action ran.',
  'code.invocation_store_unsupported':
    'Durable invocation storage is not enabled on this host; only calls made in this running host can be recovered.',
  'code.invocation_binding_unavailable':
    'No original binding is recorded for this call; it cannot be recovered from conversation text or model input.',
  'code.invocation_binding_conflict':
    'The original binding of this call does not match its session scope or the Hub receipt; inspect the original evidence.',
  'code.authorization_missing':
    'An authorization of the original scope is no longer offered to this desk (taken away, or its business system retired); the whole original scope is blocked.',
  'code.binding_conflict': 'The saved scope does not match its binding; the whole original scope is blocked.',
  'code.scope_unavailable': 'The conversation’s scope is not available; nothing was sent.',
  'code.scope_missing': 'The conversation’s saved scope is missing; nothing was sent.',
  'code.hub_unavailable': 'The Hub could not be reached; nothing was concluded. Try again once it is back.',
  'code.scope_check_failed': "The session's scope could not be checked, so nothing was sent.",
  'code.hub_unreachable':
    'The Hub could not be reached (no connection could be opened), so nothing was sent. Try again once the Hub is back.',
  'code.hub_timeout': 'The Hub did not answer in time.',
  'code.hub_network': 'The connection to the Hub failed.',
  'code.hub_aborted': 'The request to the Hub was aborted.',
  'code.hub_invalid_response': 'The Hub’s answer did not have the expected form.',
  'code.hub_invalid_request': 'The request failed its own checks and was not sent.',
  'code.hub_error': 'The request to the Hub failed.',
  'code.hub_http_error': 'The Hub answered with an unexpected HTTP status.',
  'code.cancelled': 'The turn was cancelled before the request was sent; nothing was dispatched.',
  'code.cancelled_after_send':
    'The turn was cancelled after the request was sent. It may still run; its answer will be recorded. Inspect the original call; do not send it again.',
  'code.turn_cancelled': 'The turn was cancelled; nothing was sent.',
  'code.secret_in_arguments':
    'The arguments contain a credential of this application; nothing was sent. Never put keys or tokens into business data.',
  'code.malformed_arguments': 'The arguments are not valid JSON; nothing was sent. Send a JSON object.',
  'code.no_business_scope': 'This conversation has no selected business systems; no tools are available.',
  'code.tool_not_loaded': 'This function is not loaded; nothing was sent. Use search_tools to load it again.',
  'code.recovery_failed': 'The inspect or resume request failed.',
  'code.invalid_attachment': 'An attachment is not a text file this app accepts; nothing was saved or sent.',
  'code.attachment_contains_secret':
    'An attachment contains a credential this app uses (Hub token or model key); nothing was saved or sent.',
  'code.runtime_error':
    'The call ended with an unexpected error; its outcome is not known. Inspect before trying anything else.',
  'code.interrupted':
    'The app stopped while this call was in progress, so its result was not recorded here. It may have been sent: see Needs attention and inspect the original call; do not send it again.',

  // Codes a turn ends with (src-main/runtime/turn-loop.ts), shown as conversation notices.
  'notice.archive_storage_error':
    'The conversation archive could not save this turn, so it stopped. Unsaved events are kept and saved once storage works.',
  'notice.step_limit_reached': 'The turn stopped: it reached the limit of model requests per turn.',
  'notice.model_error': 'The model request failed.',
  'notice.run_end_failed': 'A run of this turn could not be ended at the Hub.',
  // Model request failures (src-main/runtime/model/model-errors.ts MODEL_ERROR_CODES).
  'notice.model_not_configured': 'No model is configured: set a base URL and a model in Settings.',
  'notice.model_auth_failed': 'The provider refused the API key (HTTP 401). Check the key in Settings.',
  'notice.model_forbidden': 'The provider refused access with this key (HTTP 403).',
  'notice.model_not_found':
    'The provider has no such model or endpoint (HTTP 404). Check the model name and base URL.',
  'notice.model_rate_limited':
    'The provider kept rate-limiting the request (HTTP 429); the desk stopped retrying.',
  'notice.model_unavailable': 'The provider kept answering with a server error; the desk stopped retrying.',
  'notice.model_unreachable': 'The provider could not be reached; the desk stopped retrying.',
  'notice.model_timeout': 'The provider did not answer in time; the desk stopped retrying.',
  'notice.model_request_rejected': 'The provider refused the request as invalid.',
  'notice.model_stream_interrupted':
    'The reply broke off mid-stream; what arrived is kept and none of its tool calls ran.',
  'notice.model_stream_incomplete':
    'The reply ended without being complete; what arrived is kept and none of its tool calls ran.',
  'notice.model_reply_truncated': 'The reply hit the token limit while making tool calls; none of them ran.',
  // The notice codes of src-main/handlers/conversation.ts (NOTICE_CODES); the English is the notice's own text.
  'notice.turn_cancelled': 'Turn cancelled.',
  'notice.turn_failed': 'Turn failed.',
  'notice.turn_refused': 'Turn refused.',
  'notice.invocation_inspected': 'Inspected {invocation_id}.',
  'notice.resume_requested': 'Resume requested for {invocation_id}.',
  'notice.attestation_recorded': 'Your check was recorded for {invocation_id}; nothing was sent.',
  'notice.journal_restore_requested': 'Journal restore requested.',

  // Errors of calls to the main process (src-shared/errors.ts APP_ERROR_CODES, the transports'
  // own included).
  'apiError.unknown_channel': 'No such call in the contract.',
  'apiError.invalid_payload': 'The request was refused as invalid; nothing was changed.',
  'apiError.payload_too_large': 'The request or its answer is too large to send.',
  'apiError.forbidden_sender': 'This call is only accepted from the app window.',
  'apiError.not_found': 'What was asked for does not exist.',
  'apiError.conflict': 'The request conflicts with the current state; nothing was changed.',
  'apiError.hub_unavailable': 'The Hub cannot be reached right now.',
  'apiError.hub_error': 'The Hub refused or failed the request.',
  'apiError.keychain_unavailable':
    'The OS keychain is unavailable; choose session-only use to keep this secret until the app exits.',
  'apiError.model_not_configured': 'No model is configured. Set one in Settings, or run a tool by hand.',
  'apiError.demo_data_not_local':
    'Demo data can only be reset while the app runs its embedded local Hub with the demo shops.',
  'apiError.not_permitted': 'The connected credential may not do this.',
  'apiError.internal_error': 'The request failed inside the app; see the app log.',
  'apiError.attachment_contains_secret':
    'An attachment contains a credential this app uses (Hub token or model key); nothing was saved or sent. Remove it and attach the file again.',
  'apiError.host_unavailable': 'The app host is not connected.',
  'apiError.launch_token_rejected':
    'The app host refused this window: its access link is from an earlier launch.',
  'apiError.launch_token_missing': 'This page was opened without its access link.',
  'apiError.launch_link_used':
    'This access link was already used; use the window already open, or restart Bailing Desk.',
  'apiError.session_not_found': 'No such conversation.',
  'apiError.attachment_not_found': 'No such attachment in this conversation.',
  'apiError.turn_in_progress': 'A turn is already running in this conversation.',
  'apiError.runtime_closed': 'The app is shutting down and takes no more requests.',
  'apiError.scope_unavailable': 'The conversation’s scope is not available right now; nothing was sent.',
  'apiError.authorization_not_found':
    'A selected authorization does not exist or is not granted to this app.',
  'apiError.authorization_not_active': 'A selected authorization is not active.',
  'apiError.cross_hub_scope':
    'A selected authorization belongs to another Hub; a conversation uses the authorizations of one Hub.',
  'apiError.duplicate_authorization': 'An authorization was selected twice.',

  // Reasons a store or a scope is not usable (storage bar, idle rows, a blocked conversation),
  // worded to fit into a sentence; the code follows in brackets.
  'reason.withCode': '{reason} ({code})',
  'reason.invocation_store_unavailable': 'the local invocation journal cannot be saved or read',
  'reason.invocation_store_conflict': 'the local invocation journal was changed by another save',
  'reason.invocation_record_invalid': 'a journal record was rejected as invalid',
  'reason.invocation_record_too_large': 'a journal record is too large to save',
  'reason.invocation_record_corrupt': 'the stored journal cannot be read back',
  'reason.invocation_binding_conflict': 'the stored record does not match this call’s binding',
  'reason.invocation_store_unsupported': 'durable invocation storage is not enabled',
  'reason.archive_store_busy': 'the conversation archive is locked by another writer',
  'reason.archive_store_full': 'the disk holding the conversation archive is full',
  'reason.archive_store_unavailable': 'the conversation archive cannot be saved',
  'reason.archive_recovery_gap': 'part of the conversation archive is missing or unreadable',
  'reason.authorization_revoked': 'an authorization of this conversation was revoked',
  'reason.authorization_rebound': 'an authorization of this conversation changed (it was rebound)',
  'reason.system_retired':
    'the business system of an authorization of this conversation was retired on the Hub',
  'reason.authorization_missing':
    'an authorization of this conversation is no longer offered to this desk (taken away, or its business system retired)',
  'reason.binding_conflict': 'the saved scope does not match its binding',
  'reason.scope_missing': 'the saved scope of this conversation is missing',
} as const;
