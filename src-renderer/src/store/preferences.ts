/** The operator's language and theme: applied at once, and kept in the settings file (they survive a reload). */
import { call } from '../api-client.js';
import type { Lang } from '../i18n/index.js';
import { useApp, type Theme } from './app.js';

export function choosePreferences(next: { lang?: Lang; theme?: Theme }): void {
  const { lang, theme } = { ...useApp.getState(), ...next };
  useApp.setState({ lang, theme });
  // A failure to save changes nothing on screen; the next choice saves both again.
  call('setPreferences', { lang, theme }).catch(() => {});
}
