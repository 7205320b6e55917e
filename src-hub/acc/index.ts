/**
 * The Agent Capability Contract (ACC) v1 (docs/design.md#vocabulary): compile OpenAPI +
 * x-agent-capability into operations; evaluate approval rules.
 */
export type {
  CompiledOperation,
  HttpOperation,
  McpOperation,
  ApprovalRule,
  RiskLevel,
  SideEffect,
  RateWindow,
} from './types.js';
export { isMcpOperation } from './types.js';
export { DEFAULT_TIMEOUT_MS } from './types.js';
export { compileSpec, declarationRevision, type CompileResult } from './compile.js';
export { approvalRequired, ruleMatches, ruleProblem } from './approval.js';
export { checkCapability, CAPABILITY_SCHEMA, type CapabilityBlock } from './capability-schema.js';
export { modelGuidance } from './guidance.js';
