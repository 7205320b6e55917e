/**
 * Function names the model sees for cached declarations: `<authorization>__<tool>`, restricted to
 * the OpenAI name alphabet ([A-Za-z0-9_-], at most 64). The name identifies (authorization_ref, tool)
 * within one session's cache; the cache keeps the mapping back to the full identity, and resolves
 * collisions (two refs that slug to the same text) with a short hash, so two systems'
 * `update_product` never share a name.
 */
import { sha256Hex } from '../../src-shared/digest.js';

export const RESERVED_FUNCTIONS = [
  'search_tools',
  'inspect_governed_tool_invocation',
  'resume_governed_tool_invocation',
] as const;

export function slug(text: string): string {
  const s = text.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return s.length > 0 ? s : 'x';
}

export function baseFunctionName(authorizationRef: string, tool: string): string {
  const name = `${slug(authorizationRef)}__${slug(tool)}`;
  if (name.length <= 64) return name;
  const h = sha256Hex(`${authorizationRef}\u0000${tool}`).slice(0, 8);
  return `${name.slice(0, 55)}_${h}`;
}

export function disambiguatedName(authorizationRef: string, tool: string): string {
  const h = sha256Hex(`${authorizationRef}\u0000${tool}`).slice(0, 8);
  const base = baseFunctionName(authorizationRef, tool);
  return `${base.slice(0, 55)}_${h}`;
}
