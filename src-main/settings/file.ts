/**
 * The settings file (`settings.json` in the app's data folder). Never holds a secret: tokens and
 * keys live in the keychain; this file only says what is configured. Validated on load; saved
 * atomically (temp file, fsync, rename). A file that fails validation is left untouched and
 * reported: bad input loses nothing saved.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { z } from 'zod';
import { SecretClearedSchema } from '../../src-shared/ipc/views.js';
import { MODEL_PROVIDER_IDS, REASONING_SEND_BACK } from '../../src-shared/model-providers.js';
import { UI_LANGUAGES, UI_THEMES } from '../../src-shared/preferences.js';

export const SettingsFileSchema = z.strictObject({
  schema: z.literal('bailing.desk-settings.v1'),
  hub: z.strictObject({
    mode: z.enum(['local', 'remote']),
    remote_url: z.string().url().nullable(),
    /** The remote Hub's id, learned at the first successful connection (sessions are bound to it). */
    remote_hub_id: z.string().nullable(),
    /** The origin the stored client token was entered for (it is used for no other). */
    token_origin: z.string().nullable().optional(),
    /** The token was removed because the URL moved to another origin: it must be entered again. */
    token_cleared: SecretClearedSchema.nullable().optional(),
  }),
  model: z.strictObject({
    base_url: z.string().url().nullable(),
    model: z.string().min(1).nullable(),
    /** The provider preset; absent in older files (then `custom`). */
    provider: z.enum(MODEL_PROVIDER_IDS).optional(),
    /** The operator's own choices over the preset's defaults (null: the preset's). */
    stream: z.boolean().nullable().optional(),
    send_reasoning: z.enum(REASONING_SEND_BACK).nullable().optional(),
    /** The origin the stored API key was entered for (it is sent to no other). */
    key_origin: z.string().nullable().optional(),
    /** The key was removed because the base URL moved to another origin: it must be entered again. */
    key_cleared: SecretClearedSchema.nullable().optional(),
  }),
  /** Language and theme the operator chose (absent until they choose). */
  ui: z.strictObject({ lang: z.enum(UI_LANGUAGES), theme: z.enum(UI_THEMES) }).optional(),
  /** The embedded default, created on first start with no settings. */
  embedded: z
    .strictObject({
      client_id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/),
      /** The local Hub's port: sessions are bound to the Hub URL, so it stays the same across starts. */
      hub_port: z.number().int().min(1).max(65535).nullable(),
      default_session_id: z.string().nullable(),
    })
    .nullable(),
});
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

export class SettingsFileError extends Error {
  readonly code = 'settings_invalid';
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `The settings file ${file} is not valid (${detail}); it was left unchanged. Fix or move it, then start again.`,
    );
    this.name = 'SettingsFileError';
  }
}

export const defaultSettings = (): SettingsFile => ({
  schema: 'bailing.desk-settings.v1',
  hub: { mode: 'local', remote_url: null, remote_hub_id: null },
  model: { base_url: null, model: null },
  embedded: null,
});

export interface SettingsFileStore {
  readonly file: string;
  /** null on first start (no file). Throws SettingsFileError when the file is invalid. */
  load(): SettingsFile | null;
  save(next: SettingsFile): void;
}

export function createSettingsFileStore(dataDir: string): SettingsFileStore {
  const file = join(dataDir, 'settings.json');
  return {
    file,
    load() {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        throw new SettingsFileError(file, 'not JSON');
      }
      const parsed = SettingsFileSchema.safeParse(raw);
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        throw new SettingsFileError(file, `${i?.path.join('.') || '(root)'}: ${i?.message ?? 'invalid'}`);
      }
      return parsed.data;
    },
    save(next) {
      const valid = SettingsFileSchema.parse(next);
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      const fd = openSync(tmp, 'w', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(valid, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    },
  };
}
