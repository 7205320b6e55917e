/** The browser host's WebSocket frames. Calls carry a client-chosen id; events carry a name. */
import { z } from 'zod';

export const WsCallFrameSchema = z.strictObject({
  id: z.union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().min(1).max(64)]),
  call: z.string().min(1).max(100),
  input: z.unknown(),
});
export type WsCallFrame = z.infer<typeof WsCallFrameSchema>;

/** Frames larger than this are closed by the socket layer; smaller oversize ones get a coded error. */
export const WS_MAX_FRAME_BYTES = 1024 * 1024;

/**
 * The first frame of an accepted connection. The client counts the link as open only when it
 * arrives, so a connection the host closes at once (below) never looks open.
 */
export const WS_HELLO_FRAME = { hello: 'bailing.browser-host.v1' } as const;

/**
 * Close code for a WebSocket from the right page (Origin and Host match) whose token is not this
 * launch's: typically a tab left open from an earlier launch of the host, which issued its own
 * token. The browser cannot read an HTTP status of a refused upgrade (it sees only "closed"), so
 * the host accepts the upgrade, sends nothing, and closes with this code; the renderer then says
 * what happened and stops retrying. src-renderer/src/transport/ws-client.ts has the same number.
 */
export const WS_CLOSE_LAUNCH_TOKEN_REJECTED = 4401;
export const WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON = 'launch_token_rejected';

/**
 * Close code for a WebSocket from the right page that carries no session at all: the page was not
 * opened through the printed link (or its cookie is gone). The renderer says to open the link.
 */
export const WS_CLOSE_SESSION_MISSING = 4403;
export const WS_CLOSE_SESSION_MISSING_REASON = 'launch_session_missing';
