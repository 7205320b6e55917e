/**
 * Chunks with an empty `choices` list in the middle of a stream (Azure's prompt filter results,
 * keep-alive chunks of some gateways), besides the usage-only chunk at the end.
 */
import type { WireChunk } from './chunks.js';

export function emptyChoices(chunks: WireChunk[]): WireChunk[] {
  const [head, ...tail] = chunks;
  const empty: WireChunk = { choices: [] };
  return head ? [empty, head, empty, ...tail] : chunks;
}
