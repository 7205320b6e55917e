/** What the tool calls of the executor share. */
import type { ArgumentValidator } from '../argument-validation.js';
import type { RuntimeHubPort } from '../hub-port.js';
import type { InvocationRuntime } from '../invocation-ports.js';
import type { Recorder } from '../live-session.js';
import type { HubGate } from './hub-gate.js';

export interface ToolCallContext {
  hub: Pick<RuntimeHubPort, 'searchTools'>;
  invocations: InvocationRuntime;
  validator: ArgumentValidator;
  recorder: Recorder;
  gate: HubGate;
  /** Known secret values (Hub token, model key). A governed call whose arguments contain one is refused, nothing sent. */
  secrets: () => readonly string[];
}
