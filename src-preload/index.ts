/**
 * The preload: exposes `window.bailing`, one typed function per contract call and one typed
 * subscription per event. Each function names its own fixed channel; there is no generic invoke,
 * and nothing is generated at run time from names the page supplies.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { BailingApi } from '../src-shared/ipc/api.js';
import type { CallName, CallResult, EventName } from '../src-shared/ipc/contract.js';
import { channelOf, eventChannelOf } from '../src-shared/ipc/channels.js';

const invoke = <K extends CallName>(name: K, input: unknown): Promise<CallResult<K>> =>
  ipcRenderer.invoke(channelOf(name), input) as Promise<CallResult<K>>;

const listen = (name: EventName, listener: (payload: never) => void): (() => void) => {
  if (typeof listener !== 'function') throw new TypeError('listener must be a function');
  const channel = eventChannelOf(name);
  const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload as never);
  ipcRenderer.on(channel, wrapped);
  return () => {
    ipcRenderer.removeListener(channel, wrapped);
  };
};

export const api: BailingApi = {
  getAppInfo: (input) => invoke('getAppInfo', input),
  listSessions: (input) => invoke('listSessions', input),
  createSession: (input) => invoke('createSession', input),
  getConversation: (input) => invoke('getConversation', input),
  sendMessage: (input) => invoke('sendMessage', input),
  getAttachment: (input) => invoke('getAttachment', input),
  cancelTurn: (input) => invoke('cancelTurn', input),
  getJournalStatus: (input) => invoke('getJournalStatus', input),
  restoreJournal: (input) => invoke('restoreJournal', input),
  inspectInvocation: (input) => invoke('inspectInvocation', input),
  resumeInvocation: (input) => invoke('resumeInvocation', input),
  attestInvocation: (input) => invoke('attestInvocation', input),
  testHubConnection: (input) => invoke('testHubConnection', input),
  setPreferences: (input) => invoke('setPreferences', input),
  listUnresolved: (input) => invoke('listUnresolved', input),
  listAuthorizations: (input) => invoke('listAuthorizations', input),
  listAuthorizationTools: (input) => invoke('listAuthorizationTools', input),
  searchTools: (input) => invoke('searchTools', input),
  runToolManually: (input) => invoke('runToolManually', input),
  listTasks: (input) => invoke('listTasks', input),
  createTask: (input) => invoke('createTask', input),
  pauseTask: (input) => invoke('pauseTask', input),
  continueTask: (input) => invoke('continueTask', input),
  cancelTask: (input) => invoke('cancelTask', input),
  getTaskTimeline: (input) => invoke('getTaskTimeline', input),
  listApprovals: (input) => invoke('listApprovals', input),
  decideApproval: (input) => invoke('decideApproval', input),
  getSettings: (input) => invoke('getSettings', input),
  getDemoData: (input) => invoke('getDemoData', input),
  resetDemoData: (input) => invoke('resetDemoData', input),
  setHubSettings: (input) => invoke('setHubSettings', input),
  setModelSettings: (input) => invoke('setModelSettings', input),
  clearModelKey: (input) => invoke('clearModelKey', input),
  testModelConnection: (input) => invoke('testModelConnection', input),
  listMcpServers: (input) => invoke('listMcpServers', input),
  addMcpServer: (input) => invoke('addMcpServer', input),
  refreshMcpServer: (input) => invoke('refreshMcpServer', input),
  removeMcpServer: (input) => invoke('removeMcpServer', input),
  listMcpTools: (input) => invoke('listMcpTools', input),
  setMcpToolOverlay: (input) => invoke('setMcpToolOverlay', input),
  clearMcpToolOverlay: (input) => invoke('clearMcpToolOverlay', input),

  onConversationItem: (listener) => listen('conversationItem', listener),
  onTurnState: (listener) => listen('turnState', listener),
  onSessionChanged: (listener) => listen('sessionChanged', listener),
  onStorageChanged: (listener) => listen('storageChanged', listener),
  onTaskChanged: (listener) => listen('taskChanged', listener),
  onInvocationChanged: (listener) => listen('invocationChanged', listener),
  onApprovalsChanged: (listener) => listen('approvalsChanged', listener),
  onUnresolvedChanged: (listener) => listen('unresolvedChanged', listener),
  onHubConnection: (listener) => listen('hubConnection', listener),
};

contextBridge.exposeInMainWorld('bailing', api);
