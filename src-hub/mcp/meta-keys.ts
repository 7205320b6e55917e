/**
 * The `_meta` keys the Hub reads and writes (MCP's key format: a reverse-DNS prefix, a slash, a
 * name; docs/mcp.md#meta-keys). MCP itself has no idempotency key: a server that honours this one
 * can tell a repeated request from a new one.
 */
export const META_PREFIX = 'dev.bailingdesk/';
/** Outgoing `tools/call`: the Hub's invocation id. Incoming on /mcp: the client's key, which becomes the invocation id. */
export const IDEMPOTENCY_KEY_META = `${META_PREFIX}idempotency_key`;
/** Incoming on /mcp: the task the call belongs to. */
export const TASK_ID_META = `${META_PREFIX}task_id`;
/** Incoming on /mcp: the declaration revision the client saw (a call against another one is refused). */
export const DECLARATION_REVISION_META = `${META_PREFIX}declaration_revision`;
/** On /mcp results: the invocation and its state. */
export const INVOCATION_ID_META = `${META_PREFIX}invocation_id`;
export const STATE_META = `${META_PREFIX}state`;
