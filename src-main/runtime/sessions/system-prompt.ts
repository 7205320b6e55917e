/**
 * The system prompt of a session's next model request: the scope's prompt, plus what the model must
 * say when the scope is blocked or was offline at its last check (so it never claims a business
 * action happened).
 */
import { systemPrompt } from '../conversation.js';
import type { LiveSession } from '../live-session.js';

export function systemPromptFor(s: LiveSession, configuredExtra = ''): string {
  let extra = configuredExtra;
  if (s.scope.members.length > 0 && s.availability === 'blocked') {
    extra += `\nBusiness tools are unavailable right now: the session's scope is ${s.availability} (${s.availabilityReason ?? 'unknown'}${s.availabilityRef ? `: ${s.availabilityRef}` : ''}). Say so; do not claim any business action happened.`;
  } else if (s.scope.members.length > 0 && s.availability === 'offline') {
    extra += `\nThe Hub could not be reached at the last scope check (${s.availabilityReason ?? 'unknown'}). A business tool call re-checks the scope first and is refused, with nothing sent, if the Hub is still unreachable. Do not claim any business action happened unless a tool result says so.`;
  }
  return systemPrompt({ scope: s.scope, memberNames: s.memberNames, extra: extra.trim() || undefined });
}
