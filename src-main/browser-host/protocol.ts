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
