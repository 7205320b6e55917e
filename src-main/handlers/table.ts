/**
 * The one handler table. Both transports (Electron IPC and the browser host's WebSocket) reach it
 * only through the router, which has already checked the sender and validated the input.
 */
import { withLaterReceipt } from '../../src-shared/card-receipt.js';
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import type { InvocationStatusEntry } from '../runtime/invocation-ports.js';
import { AppError, requireConnectedHub } from './errors.js';
import type { HubGateway } from './hub-gateway.js';
import type { SettingsService } from '../settings/index.js';
import type { HandlerTable } from './types.js';
import { conversationItems } from './conversation.js';
import { actionView, journalSummary, sessionView, storageView, toolCallItem, toolView } from './views.js';
import { listUnresolved } from './unresolved.js';
import { demoDataHandlers, type DemoDataPort } from './demo-data.js';
import type { McpServerHandlers } from './mcp-servers.js';

export interface HandlerDeps {
  runtime: DeskRuntime;
  hub: HubGateway;
  settings: SettingsService;
  version: string;
  /** The conversation opened by default (the embedded demo conversation), if any. */
  defaultSessionId: () => string | null;
  /** Whether a model (base URL + model name) is configured; chat needs one, manual tool runs do not. */
  modelConfigured: () => boolean;
  /** The embedded demo systems' data (null without them: a remote Hub). */
  demoData?: DemoDataPort | null;
  /** Settings' MCP servers (./mcp-servers.ts). */
  mcp: McpServerHandlers;
}

export function createHandlerTable(deps: HandlerDeps): HandlerTable {
  const { runtime, hub, settings } = deps;
  const needHub = () => requireConnectedHub(hub);
  const requireSession = async (sessionId: string) => {
    const all = await runtime.listSessions();
    const found = all.find((s) => s.sessionId === sessionId);
    if (!found) throw new AppError('session_not_found', 'No such conversation.');
    return found;
  };
  /** Authorization ref -> the business system's name, for views that would otherwise show the ref. */
  const systemNames = async (): Promise<Map<string, string>> => {
    const auths = await hub.listAuthorizations().catch(() => []);
    return new Map(auths.map((a) => [a.authorization_ref, a.system_name]));
  };

  return {
    async getAppInfo(_input, ctx) {
      return {
        version: deps.version,
        transport: ctx.transport,
        hub: hub.connection(),
        settings: await settings.view(),
        default_session_id: deps.defaultSessionId(),
      };
    },

    async listSessions() {
      const sessions = await runtime.listSessions();
      return { sessions: sessions.map(sessionView) };
    },
    async createSession(input) {
      if (input.authorization_refs.length > 0 || input.task_id) needHub();
      const s = await runtime.createSession({
        title: input.title,
        authorizationRefs: input.authorization_refs,
        taskId: input.task_id,
      });
      return sessionView(s);
    },
    async getConversation(input) {
      await requireSession(input.session_id);
      const opened = await runtime.openSession(input.session_id);
      return {
        session: sessionView(opened.session),
        // The same state Needs attention leads with: the Hub's last receipt seen, else the journal's.
        // A card is brought up to the last receipt the live stream brought (an approval decided
        // elsewhere, a resume from Needs attention) when that is later than what the archive holds.
        items: conversationItems(opened.events, withLastReceipts(opened.journal.entries, hub), {
          activeTurnId: opened.session.activeTurnId,
        }).map((it) =>
          it.kind === 'tool_call' && it.invocation_id
            ? withLaterReceipt(it, hub.lastReceipt(it.invocation_id))
            : it,
        ),
        storage: storageView(opened.journal, opened.archive),
      };
    },
    async sendMessage(input) {
      const s = await requireSession(input.session_id);
      if (s.activeTurnId)
        throw new AppError('turn_in_progress', 'A turn is already running in this conversation.');
      if (!deps.modelConfigured()) {
        throw new AppError(
          'model_not_configured',
          'No model is configured. Set one in Settings, or run a tool by hand.',
        );
      }
      // The turn runs in the background; progress arrives as events (turnState, conversationItem).
      const started = new Promise<string>((resolve, reject) => {
        const off = runtime.subscribe((e) => {
          if (e.type === 'turn.state' && e.sessionId === input.session_id && e.state === 'running') {
            off();
            resolve(e.turnId);
          }
        });
        const files = input.attachments?.map((a) => ({
          name: a.name,
          mediaType: a.media_type,
          text: a.text,
        }));
        runtime.sendMessage(input.session_id, input.text, files).then(
          (r) => {
            off();
            resolve(r.turnId);
          },
          (err: unknown) => {
            off();
            reject(err);
          },
        );
      });
      return { turn_id: await started };
    },
    async getAttachment(input) {
      await requireSession(input.session_id);
      // Only this conversation's attachment space is read: another conversation's id is not found here.
      const found = await runtime.getAttachment(input.session_id, input.attachment_id);
      if (!found) throw new AppError('attachment_not_found', 'No such attachment in this conversation.');
      return { attachment: found.attachment, text: found.text };
    },
    async cancelTurn(input) {
      await requireSession(input.session_id);
      await runtime.cancelTurn(input.session_id);
      return { ok: true as const };
    },

    async getJournalStatus(input) {
      await requireSession(input.session_id);
      return journalSummary(await runtime.journalStatus(input.session_id));
    },
    async restoreJournal(input) {
      await requireSession(input.session_id);
      return journalSummary(await runtime.restoreJournal(input.session_id));
    },
    async inspectInvocation(input) {
      await requireSession(input.session_id);
      return actionView(await runtime.inspectInvocation(input.session_id, input.invocation_id));
    },
    async resumeInvocation(input) {
      await requireSession(input.session_id);
      return actionView(await runtime.resumeInvocation(input.session_id, input.invocation_id));
    },
    async attestInvocation(input) {
      await requireSession(input.session_id);
      needHub();
      return actionView(
        await runtime.attestInvocation(input.session_id, input.invocation_id, {
          outcome: input.outcome,
          note: input.note,
        }),
      );
    },
    async listUnresolved() {
      return { items: await listUnresolved({ runtime, hub }) };
    },

    async listAuthorizations() {
      needHub();
      return { authorizations: await hub.listAuthorizations() };
    },
    async listAuthorizationTools() {
      needHub();
      return { tools: await hub.listAuthorizationTools() };
    },
    async searchTools(input) {
      await requireSession(input.session_id);
      needHub();
      const found = await runtime.searchTools(input.session_id, input.query);
      return { tools: found.map(toolView) };
    },
    async runToolManually(input) {
      await requireSession(input.session_id);
      needHub();
      const r = await runtime.runToolManually(input.session_id, input.function_name, input.arguments);
      return { item: toolCallItem(r.card) };
    },

    async listTasks() {
      needHub();
      return { tasks: await hub.listTasks() };
    },
    async createTask(input) {
      needHub();
      return hub.createTask(input);
    },
    async pauseTask(input) {
      needHub();
      return hub.pauseTask(input.task_id);
    },
    async continueTask(input) {
      needHub();
      return hub.continueTask(input.task_id);
    },
    async cancelTask(input) {
      needHub();
      return hub.cancelTask(input.task_id);
    },
    async getTaskTimeline(input) {
      needHub();
      return { entries: await hub.taskTimeline(input.task_id) };
    },

    async listApprovals() {
      if (!hub.canApprove()) return { can_approve: false, approvals: [] };
      needHub();
      const approvals = await hub.listApprovals();
      const systems = await systemNames();
      const withExecution = await Promise.all(
        approvals.map(async (a) => ({
          ...a,
          execution_state: await hub.executionState(a.invocation_id),
          system_name: systems.get(a.authorization_ref) ?? null,
          session_id: hub.lastReceipt(a.invocation_id)?.agent_session_id ?? null,
        })),
      );
      return { can_approve: true, approvals: withExecution };
    },
    async decideApproval(input) {
      if (!hub.canApprove())
        throw new AppError('not_permitted', 'The connected credential may not decide approvals.');
      needHub();
      const a = await hub.decideApproval(input.approval_id, input.decision);
      return {
        ...a,
        execution_state: await hub.executionState(a.invocation_id),
        system_name: (await systemNames()).get(a.authorization_ref) ?? null,
        session_id: hub.lastReceipt(a.invocation_id)?.agent_session_id ?? null,
      };
    },

    async getSettings() {
      return settings.view();
    },
    async setHubSettings(input) {
      return settings.setHub(input);
    },
    async setModelSettings(input) {
      return settings.setModel(input);
    },
    async testModelConnection(input) {
      return settings.testModel(input);
    },
    async setPreferences(input) {
      return settings.setPreferences(input);
    },
    async testHubConnection(input) {
      return settings.testHub(input);
    },
    async clearModelKey() {
      return settings.clearModelKey();
    },
    ...demoDataHandlers(deps.demoData ?? null),

    ...deps.mcp,
  };
}

export { storageView };

/** Journal entries with the state of the last Hub receipt seen on the live stream, where there is one. */
function withLastReceipts(
  entries: readonly InvocationStatusEntry[],
  hub: Pick<HubGateway, 'lastReceipt'>,
): InvocationStatusEntry[] {
  return entries.map((e) => {
    const r = hub.lastReceipt(e.invocation_id);
    return r ? { ...e, last_known_state: r.state } : e;
  });
}
