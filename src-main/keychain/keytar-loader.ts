/**
 * keytar is an optional native module: `npm ci` skips it where libsecret's headers are missing, and
 * the app then reports the keychain as unavailable. So nothing names it where a tool resolves
 * modules ahead of time: its API is typed by `KeytarLike` (./index.ts) instead of its own
 * declarations, and it is required by name at run time, which neither the typecheck nor vite (the
 * renderer tests, the builds) try to resolve. test/architecture/keytar-absent.test.ts runs the
 * typecheck and the renderer suites in a copy of the repository without it.
 */
import { createRequire } from 'node:module';
import type { KeytarLike } from './index.js';

/** Required by name at run time: no static import for a tool to resolve ahead of time. */
const KEYTAR = 'keytar';

/** Loads keytar; throws (MODULE_NOT_FOUND, or its native binding's error) when it cannot be used. */
export async function loadKeytar(): Promise<KeytarLike> {
  const mod = createRequire(import.meta.url)(KEYTAR) as { default?: KeytarLike } & KeytarLike;
  return mod.default ?? mod;
}
