/** Authorizations and tasks, straight from the Hub: the task form's tool list, pause/continue/cancel, the timeline. */
import { requireConnectedHub } from './errors.js';
import type { HubGateway } from './hub-gateway.js';
import type { HandlerTable } from './types.js';

type TaskCalls =
  | 'listAuthorizations'
  | 'listAuthorizationTools'
  | 'listTasks'
  | 'createTask'
  | 'pauseTask'
  | 'continueTask'
  | 'cancelTask'
  | 'getTaskTimeline';

export function taskHandlers(hub: HubGateway): Pick<HandlerTable, TaskCalls> {
  const needHub = () => requireConnectedHub(hub);
  return {
    async listAuthorizations() {
      needHub();
      return { authorizations: await hub.listAuthorizations() };
    },
    async listAuthorizationTools() {
      needHub();
      return { tools: await hub.listAuthorizationTools() };
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
  };
}
