/** Authorization ref -> the business system's name ("Shop A (homeware)"), read once from the Hub when first needed. */
import { useEffect } from 'react';
import { create } from 'zustand';
import { call } from '../api-client.js';

const useNames = create<{ names: Record<string, string>; loaded: boolean }>(() => ({
  names: {},
  loaded: false,
}));
let loading: Promise<void> | null = null;

function load(): void {
  loading ??= call('listAuthorizations', {})
    .then((r) =>
      useNames.setState({
        names: Object.fromEntries(r.authorizations.map((a) => [a.authorization_ref, a.system_name])),
        loaded: true,
      }),
    )
    .catch(() => {
      loading = null; // the Hub may be back later: ask again next time
    });
}

export function useAuthorizationNames(): Record<string, string> {
  const { names, loaded } = useNames();
  useEffect(() => {
    if (!loaded) load();
  }, [loaded]);
  return names;
}
