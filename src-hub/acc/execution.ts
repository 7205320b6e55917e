/**
 * How an operation executes, from its HTTP method and its ACC `execution`/`outcome` blocks.
 * GET and HEAD are read-only and idempotent unless the capability says otherwise (BailingHub's
 * rule: its SDKs never write `execution.readonly` for a GET); other methods are writes and not
 * idempotent unless declared. A "read-only" operation whose declared outcome still changes or
 * notifies something is governed as a write: only a read with no side effect beyond reading is
 * a read (it spends no write budget).
 */
import type { CapabilityBlock } from './capability-schema.js';
import type { SideEffect } from './types.js';

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export interface ExecutionTraits {
  readonly: boolean;
  idempotent: boolean;
  side_effect: SideEffect;
  effect: 'read' | 'write';
}

export function executionTraits(method: string, cap: CapabilityBlock): ExecutionTraits {
  const safe = SAFE_METHODS.has(method.toUpperCase());
  const readonly = cap.execution?.readonly ?? safe;
  const idempotent = cap.execution?.idempotent ?? safe;
  const side_effect = cap.outcome?.side_effect ?? (readonly ? 'none' : 'write');
  const effect = readonly && (side_effect === 'none' || side_effect === 'read') ? 'read' : 'write';
  return { readonly, idempotent, side_effect, effect };
}
