/** The operator's display preferences, kept in the settings file so they survive a reload and a restart. */
export const UI_LANGUAGES = ['en', 'zh'] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];
export const UI_THEMES = ['light', 'dark'] as const;
export type UiTheme = (typeof UI_THEMES)[number];
