/**
 * Authorization ref -> the business system's name ("Shop A (homeware)") and kind (`http` / `mcp`,
 * as the Hub serves it), read once from the Hub when first needed and again after Settings added
 * an MCP server (`reloadAuthorizations`).
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import type { SystemKind } from '../../../src-shared/states.js';
import { call } from '../api-client.js';

const useNames = create<{
  names: Record<string, string>;
  kinds: Record<string, SystemKind>;
  loaded: boolean;
}>(() => ({
  names: {},
  kinds: {},
  loaded: false,
}));
let loading: Promise<void> | null = null;

function load(): Promise<void> {
  loading ??= call('listAuthorizations', {})
    .then((r) =>
      useNames.setState({
        names: Object.fromEntries(r.authorizations.map((a) => [a.authorization_ref, a.system_name])),
        // An older Hub does not say: its systems are all HTTP.
        kinds: Object.fromEntries(
          r.authorizations.map((a) => [a.authorization_ref, a.system_kind ?? 'http']),
        ),
        loaded: true,
      }),
    )
    .catch(() => {
      loading = null; // the Hub may be back later: ask again next time
    });
  return loading;
}

/** Reads the authorizations again (a server was added; its authorization is new). */
export function reloadAuthorizations(): Promise<void> {
  loading = null;
  return load();
}

export function useAuthorizationNames(): Record<string, string> {
  const { names, loaded } = useNames();
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded]);
  return names;
}

/** Authorization ref -> its system's kind; a ref not (yet) known is absent (no badge is guessed). */
export function useAuthorizationKinds(): Record<string, SystemKind> {
  const { kinds, loaded } = useNames();
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded]);
  return kinds;
}
