/** Per-operation fault injection. One active fault per operation name ('*' matches every operation). */
import { FaultSpecSchema, type FaultSpec, type FaultSpecInput } from '../types.js';

export interface FaultRegistry {
  set(f: FaultSpecInput): void;
  clear(): void;
  list(): FaultSpec[];
  /** The fault for a business operation request (lookup_unavailable excluded); consumes a 'once' fault. */
  takeForOperation(operation: string): FaultSpec | null;
  /** True when the operations look-up for a record of `operation` (null: unknown key) must answer 503. */
  takeForLookup(operation: string | null): boolean;
}

export function createFaultRegistry(): FaultRegistry {
  const operationFaults = new Map<string, FaultSpec>();
  const lookupFaults = new Map<string, FaultSpec>();

  const consume = (map: Map<string, FaultSpec>, key: string): FaultSpec | null => {
    const f = map.get(key);
    if (!f) return null;
    if (f.times === 'once') map.delete(key);
    return f;
  };

  return {
    set(input) {
      const f = FaultSpecSchema.parse(input);
      if (f.kind === 'lookup_unavailable') lookupFaults.set(f.operation, f);
      else operationFaults.set(f.operation, f);
    },
    clear() {
      operationFaults.clear();
      lookupFaults.clear();
    },
    list() {
      return [...operationFaults.values(), ...lookupFaults.values()].map((f) => ({ ...f }));
    },
    takeForOperation(operation) {
      return consume(operationFaults, operation) ?? consume(operationFaults, '*');
    },
    takeForLookup(operation) {
      const hit =
        (operation !== null ? consume(lookupFaults, operation) : null) ?? consume(lookupFaults, '*');
      return hit !== null;
    },
  };
}
