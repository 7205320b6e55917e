/** Canonical JSON (sorted object keys, no whitespace) and SHA-256 digests shared by the Hub and the host. */
import { hash } from 'node:crypto';

type Frame =
  | { array: true; items: readonly unknown[]; next: number }
  | { array: false; obj: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (k: string) => ARRAY_INDEX.test(k) && Number(k) < 2 ** 32 - 1;

/**
 * The key order of the canonical form: sorted, except that keys which are array indices come
 * first in numeric order — the order JavaScript gives a plain object's keys, and so the order the
 * digests have always had (they must never change: receipts and journals keep them).
 */
function canonicalKeys(obj: Record<string, unknown>): string[] {
  // An own `__proto__` key was always left out (assigning it to a plain object sets the prototype);
  // the Hub refuses request bodies that carry one.
  const keys = Object.keys(obj);
  let sawIndex = false;
  let sawProto = false;
  for (const k of keys) {
    const c = k.charCodeAt(0);
    // only a key starting with a digit can be an array index
    if (c >= 0x30 && c <= 0x39) sawIndex = true;
    else if (k === '__proto__') sawProto = true;
  }
  const sorted = (sawProto ? keys.filter((k) => k !== '__proto__') : keys).sort();
  if (!sawIndex) return sorted;
  const indices = sorted.filter(isArrayIndex);
  if (indices.length === 0) return sorted;
  indices.sort((a, b) => Number(a) - Number(b));
  return [...indices, ...sorted.filter((k) => !isArrayIndex(k))];
}

/** A JSON scalar, or undefined when JSON leaves the value out (undefined, functions, symbols). */
function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined;
  }
}

/** Nesting the recursive walk (canonicalShallow) takes; anything deeper is walked iteratively. */
const RECURSION_LIMIT = 64;

/** Thrown by canonicalShallow at RECURSION_LIMIT: the value is walked again by canonicalDeep. */
const TOO_DEEP: unique symbol = Symbol('too deep');

/**
 * The same text as canonicalDeep, by plain recursion (no frame objects, no output array): the
 * values the Hub digests on every call — arguments, results, receipts — are a few levels deep.
 */
function canonicalShallow(v: unknown, depth: number): string | undefined {
  if (v === null || typeof v !== 'object') return scalar(v);
  if (depth >= RECURSION_LIMIT) throw TOO_DEEP;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      out += canonicalShallow(v[i], depth + 1) ?? 'null';
    }
    return out + ']';
  }
  const obj = v as Record<string, unknown>;
  let out = '{';
  let wrote = false;
  for (const key of canonicalKeys(obj)) {
    const text = canonicalShallow(obj[key], depth + 1);
    if (text === undefined) continue; // undefined, functions and symbols are left out of objects
    out += (wrote ? ',' : '') + JSON.stringify(key) + ':' + text;
    wrote = true;
  }
  return out + '}';
}

/**
 * Canonical JSON of a value: what `JSON.stringify` gives after sorting every object's keys (see
 * canonicalKeys for array-index keys), with `undefined` object fields left out. Values nested
 * deeper than RECURSION_LIMIT are walked iteratively (canonicalDeep), so nesting depth is bounded
 * by memory, not by the call stack: hostile input deep enough to overflow a recursive walk still
 * gets a digest (the Hub refuses such bodies earlier anyway, see json-depth.ts).
 */
export function canonicalJson(value: unknown): string {
  try {
    return canonicalShallow(value, 0) as string;
  } catch (err) {
    if (err === TOO_DEEP) return canonicalDeep(value);
    throw err;
  }
}

/** canonicalJson with an explicit stack instead of recursion (any depth). */
export function canonicalDeep(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ array: true, items: v, next: 0 });
    } else {
      const obj = v as Record<string, unknown>;
      out.push('{');
      stack.push({ array: false, obj, keys: canonicalKeys(obj), next: 0, wrote: false });
    }
  };
  /** Writes one value (undefined, functions and symbols are null in arrays); containers are finished by the loop below. */
  const emit = (v: unknown): void => {
    if (v !== null && typeof v === 'object') open(v);
    else out.push(scalar(v) ?? 'null');
  };

  if (value === null || typeof value !== 'object') return scalar(value) as string;
  open(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame;
    if (top.array) {
      if (top.next >= top.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      emit(top.items[top.next++]);
      continue;
    }
    if (top.next >= top.keys.length) {
      out.push('}');
      stack.pop();
      continue;
    }
    const key = top.keys[top.next++] as string;
    const v = top.obj[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out.push(top.wrote ? ',' : '', JSON.stringify(key), ':');
    top.wrote = true;
    emit(v);
  }
  return out.join('');
}

/** One-shot (`crypto.hash`): about half the time of a Hash object for the small texts hashed per call. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** The parameter digest binds an invocation id to its exact arguments. */
export function parameterDigest(args: unknown): string {
  return sha256Hex(canonicalJson(args));
}
