/**
 * What the handler table needs from the Hub beyond the runtime: authorizations, tasks, approvals,
 * the live connection state. Implemented over the hub-client by `createHubGateway`
 * (./hub-gateway-over-client.ts); tokens stay inside that implementation.
 */
import type {
  Approval,
  Authorization,
  CreateTaskRequest,
  Receipt,
  TaskView,
} from '../../src-shared/hub-api.js';
import type { AuthorizationTool, HubConnection, TimelineEntry } from '../../src-shared/ipc/views.js';

export type HubGatewayEvent =
  | { type: 'task'; task: TaskView }
  | { type: 'invocation'; receipt: Receipt }
  | { type: 'authorization'; authorization: Authorization }
  | { type: 'approvals'; pending: number }
  | { type: 'connection'; connection: HubConnection };

export interface HubGateway {
  connection(): HubConnection;
  listAuthorizations(): Promise<Authorization[]>;
  /** The tools of every active authorization, as the Hub declares them to this client. */
  listAuthorizationTools(): Promise<AuthorizationTool[]>;
  listTasks(): Promise<TaskView[]>;
  createTask(req: CreateTaskRequest): Promise<TaskView>;
  pauseTask(taskId: string): Promise<TaskView>;
  continueTask(taskId: string): Promise<TaskView>;
  cancelTask(taskId: string): Promise<TaskView>;
  taskTimeline(taskId: string): Promise<TimelineEntry[]>;
  /** True only where the connected credential may approve (the embedded Hub's operator). */
  canApprove(): boolean;
  listApprovals(): Promise<Approval[]>;
  decideApproval(approvalId: string, decision: 'approve' | 'deny'): Promise<Approval>;
  /** The call's current state at the Hub (live stream first, else a read-only inspect); null when unknown. */
  executionState(invocationId: string): Promise<Receipt['state'] | null>;
  /** The last receipt seen for an invocation on the live stream (idle panel), if any. */
  lastReceipt(invocationId: string): Receipt | null;
  subscribe(listener: (e: HubGatewayEvent) => void): () => void;
  close(): Promise<void>;
}
