/**
 * The composer's attachment rules, before anything is sent: which files may be attached (text
 * files by extension: .txt, .csv, .md/.markdown, .json), how long their text may be
 * (MAX_ATTACHMENT_CHARS), how many a message carries (MAX_ATTACHMENTS), no NUL characters, and a
 * whole sendMessage request within MAX_PAYLOAD_BYTES of JSON. Each refusal is coded; the
 * composer words it (attach.refused.*). Pure functions: no store, no DOM beyond TextEncoder.
 */
import { MAX_PAYLOAD_BYTES, type CallInput } from '../../../src-shared/ipc/contract.js';
import { MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS, type AttachmentView } from '../../../src-shared/ipc/views.js';

export type AttachmentMediaType = AttachmentView['media_type'];

/** An attachment read from a file, waiting in the composer for the next message. */
export interface PendingAttachment {
  /** Unique within the composer (two files may share a name). */
  key: string;
  name: string;
  media_type: AttachmentMediaType;
  text: string;
  /** UTF-8 bytes of the text, as the conversation later shows it. */
  size_bytes: number;
}

export type RefusalCode = 'type' | 'too_long' | 'too_many' | 'nul' | 'payload' | 'name' | 'unreadable';
export interface Refusal {
  code: RefusalCode;
  /** The file's name (empty for a refusal of the whole message). */
  name: string;
  /** For payload: the request's bytes; for unreadable: the reader's message. */
  detail?: string | number;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Longest file name the contract accepts. */
export const MAX_NAME_CHARS = 200;

/** What the file picker offers: the extensions and the media types the contract allows. */
export const ACCEPT = '.txt,.csv,.md,.markdown,.json,text/plain,text/csv,text/markdown,application/json';

const BY_EXTENSION: Readonly<Record<string, AttachmentMediaType>> = {
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
};

/**
 * The media type of a file by its extension; null for any other file (refused, never guessed as
 * text/plain). Only a .txt file is text/plain.
 */
export function mediaTypeOf(name: string): AttachmentMediaType | null {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return null;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null;
}

const encoder = new TextEncoder();
export const utf8Bytes = (s: string): number => encoder.encode(s).length;

/**
 * A file larger than this many bytes cannot hold MAX_ATTACHMENT_CHARS characters or fewer (a
 * UTF-16 code unit takes at most 3 bytes of UTF-8), so it is refused without being read.
 */
export const MAX_FILE_BYTES = MAX_ATTACHMENT_CHARS * 3;

/** Checks a file's name and size before reading it: its media type when it may be read. */
export function checkFile(file: {
  name: string;
  size: number;
}): { refusal: Refusal } | { media_type: AttachmentMediaType } {
  if (file.name.trim() === '' || file.name.length > MAX_NAME_CHARS || CONTROL.test(file.name))
    return { refusal: { code: 'name', name: file.name } };
  const media_type = mediaTypeOf(file.name);
  if (!media_type) return { refusal: { code: 'type', name: file.name } };
  if (file.size > MAX_FILE_BYTES) return { refusal: { code: 'too_long', name: file.name } };
  return { media_type };
}

/** Checks a file's text once read; null when it may be attached. */
export function checkText(name: string, text: string): Refusal | null {
  if (text.includes('\u0000')) return { code: 'nul', name };
  // Characters as the contract counts them (string length, UTF-16 code units).
  if (text.length > MAX_ATTACHMENT_CHARS) return { code: 'too_long', name };
  return null;
}

/** The sendMessage request the composer makes (attachments only when there are any). */
export function buildSendInput(
  sessionId: string,
  text: string,
  pending: readonly PendingAttachment[],
): CallInput<'sendMessage'> {
  if (pending.length === 0) return { session_id: sessionId, text };
  return {
    session_id: sessionId,
    text,
    attachments: pending.map((a) => ({ name: a.name, media_type: a.media_type, text: a.text })),
  };
}

/** Bytes of the request's JSON, as the transports measure it against MAX_PAYLOAD_BYTES. */
export const requestBytes = (input: CallInput<'sendMessage'>): number => utf8Bytes(JSON.stringify(input));

/** The refusal of a whole message that would be too large to send, or null. */
export function checkRequest(
  sessionId: string,
  text: string,
  pending: readonly PendingAttachment[],
  name = '',
): Refusal | null {
  const bytes = requestBytes(buildSendInput(sessionId, text, pending));
  return bytes > MAX_PAYLOAD_BYTES ? { code: 'payload', name, detail: bytes } : null;
}

/** Whether one more attachment fits in the message. */
export const roomFor = (pending: readonly PendingAttachment[]): boolean => pending.length < MAX_ATTACHMENTS;

/** Reads a file as text (UTF-8), with Blob.text where the browser has it, else a FileReader. */
export function readText(file: File): Promise<string> {
  if (typeof file.text === 'function') return file.text();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsText(file);
  });
}

let counter = 0;

/**
 * Reads and checks files to add to the pending list, in order: each is refused (with its code)
 * or added; the pending list never exceeds MAX_ATTACHMENTS and the request stays within
 * MAX_PAYLOAD_BYTES with the composer's current text.
 */
export async function addFiles(
  sessionId: string,
  text: string,
  pending: readonly PendingAttachment[],
  files: readonly File[],
): Promise<{ pending: PendingAttachment[]; refusals: Refusal[] }> {
  const next = pending.slice();
  const refusals: Refusal[] = [];
  for (const file of files) {
    if (!roomFor(next)) {
      refusals.push({ code: 'too_many', name: file.name });
      continue;
    }
    const before = checkFile(file);
    if ('refusal' in before) {
      refusals.push(before.refusal);
      continue;
    }
    let body: string;
    try {
      body = await readText(file);
    } catch (err) {
      refusals.push({
        code: 'unreadable',
        name: file.name,
        detail: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    const after = checkText(file.name, body);
    if (after) {
      refusals.push(after);
      continue;
    }
    counter += 1;
    const candidate: PendingAttachment = {
      key: `att-${counter}`,
      name: file.name,
      media_type: before.media_type,
      text: body,
      size_bytes: utf8Bytes(body),
    };
    const tooLarge = checkRequest(sessionId, text, [...next, candidate], file.name);
    if (tooLarge) {
      refusals.push(tooLarge);
      continue;
    }
    next.push(candidate);
  }
  return { pending: next, refusals };
}
