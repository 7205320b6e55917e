/**
 * Coded errors end to end (docs/design.md#errors): every error the main side can send the renderer
 * — from the call router, both transports, the handlers, settings, the keychain and the runtime —
 * is one `AppError` shape `{code, message, cause?}`. `code` is one of APP_ERROR_CODES; the renderer
 * words the error from it (and from `cause.error`), never from `message`, which is English for
 * logs and developers. `cause` carries the Hub's own `{error, message}` unchanged when the Hub
 * refused or failed the request.
 */
import { z } from 'zod';

export const APP_ERROR_CODES = [
  // The call router and both transports (Electron IPC, the browser host's WebSocket).
  'unknown_channel',
  'invalid_payload',
  'payload_too_large',
  'forbidden_sender',
  'host_unavailable',
  'launch_token_rejected',
  'launch_token_missing',
  'launch_link_used',
  // The handlers.
  'not_found',
  'session_not_found',
  'attachment_not_found',
  'conflict',
  'turn_in_progress',
  'hub_unavailable',
  'hub_error',
  'not_permitted',
  'model_not_configured',
  'keychain_unavailable',
  'demo_data_not_local',
  'system_exists',
  // The runtime.
  'runtime_closed',
  'scope_unavailable',
  'attachment_contains_secret',
  'authorization_not_found',
  'authorization_not_active',
  'cross_hub_scope',
  'duplicate_authorization',
  // Anything else: the details go to the app log, never to the renderer.
  'internal_error',
] as const;
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];
export const AppErrorCodeSchema = z.enum(APP_ERROR_CODES);

export function isAppErrorCode(code: unknown): code is AppErrorCode {
  return typeof code === 'string' && (APP_ERROR_CODES as readonly string[]).includes(code);
}

/** The Hub's error body (`{"error": code, "message": text}`), carried unchanged. */
export const HubCauseSchema = z.strictObject({ error: z.string().max(200), message: z.string().max(4000) });
export type HubCause = z.infer<typeof HubCauseSchema>;

export const AppErrorSchema = z.strictObject({
  code: AppErrorCodeSchema,
  message: z.string(),
  cause: HubCauseSchema.optional(),
});
export type AppErrorData = z.infer<typeof AppErrorSchema>;

/** A coded error the main side throws; the call router sends its data as it is. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly hubCause?: HubCause,
  ) {
    super(message);
  }

  toData(): AppErrorData {
    return { code: this.code, message: this.message, ...(this.hubCause ? { cause: this.hubCause } : {}) };
  }
}
