export {
  startScriptedModel,
  NO_STEP_TEXT,
  type ScriptedModel,
  type LoggedRequest,
  type StartScriptedModelOptions,
} from './server.js';
export {
  parseScriptJson,
  stepMatches,
  trailingToolResults,
  lastUserText,
  messageText,
  type Script,
  type ScriptStep,
  type ScriptReply,
  type ScriptToolCall,
  type StepMatch,
  type ChatRequestBody,
  type ChatMessage,
} from './script.js';
