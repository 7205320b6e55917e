/**
 * The composer's pending attachments, per conversation: added from the file picker (checked by
 * logic/attachments.ts), removable one by one, sent with the next message and cleared only after
 * that send succeeded (a failed send keeps them).
 */
import { create } from 'zustand';
import { addFiles, checkRequest, type PendingAttachment, type Refusal } from '../logic/attachments.js';
import { useSessions } from './sessions.js';

export interface ComposerState {
  pending: Record<string, PendingAttachment[]>;
  /** Reads and checks files for a conversation; returns the refusals (the rest are added). */
  add(sessionId: string, text: string, files: readonly File[]): Promise<Refusal[]>;
  remove(sessionId: string, key: string): void;
  /**
   * Sends the message in the open conversation with its pending attachments. Resolves with a refusal (and
   * sends nothing) when the request would be too large; clears the attachments after a successful
   * send; a failed send throws and keeps them.
   */
  send(text: string): Promise<Refusal | null>;
}

const NONE: PendingAttachment[] = [];
export const pendingOf = (s: ComposerState, sessionId: string | null): PendingAttachment[] =>
  sessionId ? (s.pending[sessionId] ?? NONE) : NONE;

export const useComposer = create<ComposerState>((set, get) => ({
  pending: {},
  async add(sessionId, text, files) {
    const r = await addFiles(sessionId, text, pendingOf(get(), sessionId), files);
    set((s) => ({ pending: { ...s.pending, [sessionId]: r.pending } }));
    return r.refusals;
  },
  remove(sessionId, key) {
    set((s) => ({
      pending: { ...s.pending, [sessionId]: pendingOf(s, sessionId).filter((a) => a.key !== key) },
    }));
  },
  async send(text) {
    const sessionId = useSessions.getState().currentId;
    if (!sessionId) return null;
    const attachments = pendingOf(get(), sessionId);
    const tooLarge = checkRequest(sessionId, text, attachments);
    if (tooLarge) return tooLarge;
    await useSessions.getState().send(text, attachments);
    // Only what was sent is cleared (a file added while the send was on its way stays).
    set((s) => ({
      pending: { ...s.pending, [sessionId]: pendingOf(s, sessionId).filter((a) => !attachments.includes(a)) },
    }));
    return null;
  },
}));
