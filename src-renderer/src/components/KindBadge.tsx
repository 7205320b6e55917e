/**
 * The kind of a business system (HTTP or MCP) beside its name, wherever calls and tools are shown:
 * search results, cards, the task form, the timeline and Needs attention. Derived from the kind the
 * Hub serves (a declaration's `system_kind`, an authorization's); nothing is shown when it is not known.
 */
import React from 'react';
import type { SystemKind } from '../../../src-shared/states.js';
import { useT } from '../i18n/use-t.js';
import { useAuthorizationKinds } from '../store/authorization-names.js';

export function KindBadge({ kind }: { kind: SystemKind | null | undefined }): React.JSX.Element | null {
  const t = useT();
  if (!kind) return null;
  const words = t(`systemKind.${kind}`);
  return (
    <span
      className={`kind-badge kind-${kind}`}
      data-testid="system-kind"
      data-kind={kind}
      title={t('systemKind.label', { kind: words })}
    >
      {words}
    </span>
  );
}

/** The badge of the system an authorization belongs to (from the Hub's authorizations list). */
export function AuthorizationKindBadge({
  authorizationRef,
}: {
  authorizationRef: string | null;
}): React.JSX.Element | null {
  const kinds = useAuthorizationKinds();
  return <KindBadge kind={authorizationRef ? kinds[authorizationRef] : null} />;
}
