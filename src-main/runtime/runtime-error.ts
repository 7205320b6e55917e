/** A coded refusal of the DeskRuntime (no such session, a turn already running, ...). */
export class DeskRuntimeError extends Error {
  override name = 'DeskRuntimeError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
