/**
 * The idle panel's list: every unresolved invocation across sessions, from each session's journal
 * (the host's durable record) joined with the last Hub receipt seen on the live stream. Unsaved
 * records are listed too: a storage failure stays visible until it is resolved.
 *
 * Resume is offered by `canResume` (src-shared/states.ts): for calls the Hub can continue or
 * reconcile (approved, unknown, unverified) and for a saved dispatch fence the Hub has not answered
 * (`pending_dispatch`): the explicit resume asks the Hub with the original id and yields the
 * authoritative answer (e.g. `invocation_not_found` -> unverified); it never sends a replacement invoke.
 */
import { canResume, isAttestable, isUnresolved, type InvocationState } from '../../src-shared/states.js';
import type { UnresolvedItem } from '../../src-shared/ipc/views.js';
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import type { HubGateway } from './hub-gateway.js';

export async function listUnresolved(deps: {
  runtime: DeskRuntime;
  hub: Pick<HubGateway, 'lastReceipt'>;
}): Promise<UnresolvedItem[]> {
  const sessions = await deps.runtime.listSessions();
  const out: UnresolvedItem[] = [];
  for (const s of sessions) {
    const [journal, archive] = await Promise.all([
      deps.runtime.journalStatus(s.sessionId),
      deps.runtime.archiveStatus(s.sessionId),
    ]);
    const unsaved = new Map(journal.unsavedRecords.map((u) => [u.invocation_id, u]));
    const seen = new Set<string>();
    for (const e of journal.entries) {
      const receipt = deps.hub.lastReceipt(e.invocation_id);
      const hubState: InvocationState | null = receipt?.state ?? null;
      const effective = hubState ?? (e.last_known_state === 'pending_dispatch' ? null : e.last_known_state);
      const u = unsaved.get(e.invocation_id);
      const open =
        u !== undefined ||
        e.last_known_state === 'pending_dispatch' ||
        (effective !== null && isUnresolved(effective));
      if (!open) continue;
      seen.add(e.invocation_id);
      out.push({
        invocation_id: e.invocation_id,
        session_id: s.sessionId,
        session_title: s.title,
        tool: e.tool,
        authorization_ref: e.authorization_ref,
        hub_state: hubState,
        journal_entry_state: e.last_known_state,
        journal_state: journal.state,
        archive_state: archive.state,
        unsaved: u !== undefined,
        unsaved_reason: u?.reason ?? null,
        can_inspect: true,
        can_resume: canResume({
          invocationId: e.invocation_id,
          targetKnown: true,
          unsaved: u !== undefined,
          state: effective ?? e.last_known_state,
        }),
        // A person may settle a call whose result is not known; a saved fence is resumed first.
        can_attest: u === undefined && effective !== null && isAttestable(effective),
        updated_at: receipt?.updated_at ?? u?.since ?? s.updatedAt,
      });
    }
    for (const u of journal.unsavedRecords) {
      if (seen.has(u.invocation_id)) continue;
      out.push({
        invocation_id: u.invocation_id,
        session_id: s.sessionId,
        session_title: s.title,
        tool: '',
        authorization_ref: '',
        hub_state: deps.hub.lastReceipt(u.invocation_id)?.state ?? null,
        journal_entry_state: 'unsaved',
        journal_state: journal.state,
        archive_state: archive.state,
        unsaved: true,
        unsaved_reason: u.reason,
        can_inspect: true,
        can_resume: false,
        can_attest: false,
        updated_at: u.since,
      });
    }
  }
  out.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
  return out;
}
