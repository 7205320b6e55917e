/**
 * Which path a request is sent to and which path its signature covers, for a base URL that may
 * carry a path prefix (e.g. https://erp.example.com/openapi). See docs/business-systems.md
 * ("Which path is signed").
 *
 * - The request is always sent to prefix + path (`requestTarget`).
 * - `signed_path: operation` (default, BailingHub's convention): a call is signed over the
 *   operation's path with its query, as written in the spec, without the prefix.
 * - `signed_path: full`: a call is signed over exactly the request target sent.
 * The spec GET is signed over the request target sent in both modes (BailingHub signs the path of
 * its spec URL).
 */
import type { SignedPathMode } from '../../src-shared/hub-api.js';

/** The base URL's path without its trailing slashes: what every request target starts with. */
export function targetPrefix(baseUrl: URL): string {
  return baseUrl.pathname.replace(/\/+$/, '');
}

/** The base URL's path (without a trailing slash) + pathWithQuery: the exact request target sent. */
export function requestTarget(baseUrl: URL, pathWithQuery: string): string {
  return targetWithPrefix(targetPrefix(baseUrl), pathWithQuery);
}

/** requestTarget with the base URL's prefix already taken (system-origin.ts). */
export function targetWithPrefix(prefix: string, pathWithQuery: string): string {
  return `${prefix}${pathWithQuery.startsWith('/') ? '' : '/'}${pathWithQuery}`;
}

/** The path the signature of a call covers under `mode`; `target` is the request target sent. */
export function signedPathFor(mode: SignedPathMode, target: string, pathWithQuery: string): string {
  if (mode === 'full') return target;
  return pathWithQuery.startsWith('/') ? pathWithQuery : `/${pathWithQuery}`;
}

/** The path the signature of a call covers under `mode`. */
export function signedPathOf(mode: SignedPathMode, baseUrl: URL, pathWithQuery: string): string {
  return signedPathFor(mode, requestTarget(baseUrl, pathWithQuery), pathWithQuery);
}
