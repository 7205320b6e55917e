/**
 * A demo system's business data in one SQLite file of the data folder (WAL, synchronous=FULL: a
 * commit is on disk before the system answers). The file is input from outside: its format, schema
 * version, owner system and every row are checked when it is opened; a file that fails is reported
 * with a code (DemoDataError) and left untouched — never reseeded over — until the operator resets
 * the demo data, which sets it aside under a new name and starts a new file from the seed.
 */
import Database from 'better-sqlite3';
import { existsSync, lstatSync, renameSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, ensurePrivateFile } from '../../src-shared/private-files.js';
import type { LedgerEntry } from '../types.js';
import type { BusinessStore, DataStatus, StoredOutcome } from './business-store.js';
import { asDemoDataError, DemoDataError, DemoDataWriteError, errorCodeOf } from './data-errors.js';

export const DEMO_DATA_FORMAT = 'bailing-demo-data';
export const DEMO_DATA_SCHEMA_VERSION = '1';
/** Largest stored business state or result the file may hold (bytes of JSON). */
const MAX_DOC_BYTES = 4 * 1024 * 1024;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE business_state (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT;
CREATE TABLE ledger (
  seq INTEGER PRIMARY KEY, idempotency_key TEXT NOT NULL, operation TEXT NOT NULL, target TEXT NOT NULL,
  changes TEXT NOT NULL, job_id TEXT NOT NULL, on_behalf_of TEXT NOT NULL, at TEXT NOT NULL) STRICT;
CREATE TABLE outcomes (
  idempotency_key TEXT PRIMARY KEY, operation TEXT NOT NULL, status TEXT NOT NULL, http_status INTEGER NOT NULL,
  result TEXT NOT NULL, fingerprint TEXT NOT NULL, recorded_at TEXT NOT NULL) STRICT;
`;
const TABLES = ['business_state', 'ledger', 'meta', 'outcomes'];

const jsonText = z
  .string()
  .max(MAX_DOC_BYTES)
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  });

const LedgerRow = z.strictObject({
  seq: z.number().int().min(1),
  idempotency_key: z.string().max(256),
  operation: z.string().max(100),
  target: z.string().max(200),
  changes: jsonText.pipe(z.record(z.string(), z.strictObject({ before: z.unknown(), after: z.unknown() }))),
  job_id: z.string().max(256),
  on_behalf_of: z.string().max(256),
  at: z.string().max(40),
});

const OutcomeRow = z.strictObject({
  idempotency_key: z.string().max(256),
  operation: z.string().max(100),
  status: z.enum(['succeeded', 'failed']),
  http_status: z.number().int().min(100).max(599),
  result: jsonText,
  fingerprint: z.string().max(128),
  recorded_at: z.string().max(40),
});

export interface SqliteStoreOptions<S> {
  file: string;
  systemId: string;
  schema: z.ZodType<S>;
  now?: () => Date;
}

const clone = <T>(v: T): T => structuredClone(v);

export function createSqliteStore<S>(opts: SqliteStoreOptions<S>): BusinessStore<S> {
  const now = opts.now ?? (() => new Date());
  const name = basename(opts.file);
  let db: Database.Database | null = null;
  let problem: DemoDataError | null = null;
  let state: S | null = null;

  const meta = (d: Database.Database, key: string): string | null =>
    (d.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ??
    null;
  const setMeta = (d: Database.Database, key: string, value: string) =>
    d
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);

  const bad = (check: string, what: string) => new DemoDataError('corrupt', `${name}: ${what}`, check);

  function connect(): Database.Database {
    ensurePrivateDir(dirname(opts.file));
    // A directory, device or link where the file belongs is not ours to open (or replace).
    if (existsSync(opts.file) && !lstatSync(opts.file).isFile())
      throw new DemoDataError('unreadable', `${name} is not a regular file`, 'not_a_file');
    ensurePrivateFile(opts.file);
    // busy timeout 1 s from the first statement (a file held by another process is refused quickly)
    const d = new Database(opts.file, { timeout: 1000 });
    try {
      d.pragma('journal_mode = WAL');
      d.pragma('synchronous = FULL');
      // One process at a time: a second one (another desk on the same folder) is refused, not merged.
      d.pragma('locking_mode = EXCLUSIVE');
      return d;
    } catch (err) {
      d.close();
      throw err;
    }
  }

  /** Seeds a file that holds nothing yet (new, or left empty by a crash before its first commit). */
  function initialise(d: Database.Database, seed: S): void {
    d.transaction(() => {
      d.exec(SCHEMA);
      const at = now().toISOString();
      setMeta(d, 'format', DEMO_DATA_FORMAT);
      setMeta(d, 'schema_version', DEMO_DATA_SCHEMA_VERSION);
      setMeta(d, 'system_id', opts.systemId);
      setMeta(d, 'seeded_at', at);
      d.prepare('INSERT INTO business_state (id, doc, updated_at) VALUES (1, ?, ?)').run(
        JSON.stringify(seed),
        at,
      );
    }).immediate();
  }

  /** Every check a file must pass before the system serves from it. */
  function verify(d: Database.Database): S {
    const integrity = d.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') throw bad('quick_check', `SQLite integrity check failed (${String(integrity)})`);
    const tables = (
      d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((t) => t.name);
    if (tables.join(',') !== TABLES.join(','))
      throw new DemoDataError(
        'incompatible',
        `${name} is not a demo data file (tables: ${tables.join(', ') || 'none'})`,
        'tables',
      );
    if (meta(d, 'format') !== DEMO_DATA_FORMAT)
      throw new DemoDataError('incompatible', `${name} is not a demo data file`, 'format');
    const version = meta(d, 'schema_version');
    if (version !== DEMO_DATA_SCHEMA_VERSION)
      throw new DemoDataError(
        'incompatible',
        `${name} has schema version ${String(version)}; this version reads ${DEMO_DATA_SCHEMA_VERSION}`,
        'schema_version',
      );
    const owner = meta(d, 'system_id');
    if (owner !== opts.systemId)
      throw new DemoDataError(
        'incompatible',
        `${name} belongs to ${String(owner)}, not ${opts.systemId}`,
        'system_id',
      );
    const row = d.prepare('SELECT doc FROM business_state WHERE id = 1').get() as
      { doc: unknown } | undefined;
    if (!row) throw bad('business_state', 'the business state is missing');
    const doc = jsonText.safeParse(row.doc);
    if (!doc.success) throw bad('business_state', 'the business state is not JSON');
    const parsed = opts.schema.safeParse(doc.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw bad(
        'business_state',
        `the business state is not valid (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`,
      );
    }
    for (const r of d.prepare('SELECT * FROM ledger ORDER BY seq').iterate())
      if (!LedgerRow.safeParse(r).success) throw bad('ledger', 'a ledger entry is not valid');
    for (const r of d.prepare('SELECT * FROM outcomes').iterate())
      if (!OutcomeRow.safeParse(r).success) throw bad('outcomes', 'a settled result is not valid');
    return parsed.data;
  }

  function openFile(seed: () => S): { db: Database.Database; state: S } {
    const d = connect();
    try {
      const empty = (d.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n === 0;
      if (empty) initialise(d, seed());
      return { db: d, state: verify(d) };
    } catch (err) {
      d.close();
      throw err;
    }
  }

  const need = (): Database.Database => {
    if (db) return db;
    throw problem ?? new DemoDataError('unreadable', `${name} is not open`, 'not_open');
  };

  const ledgerEntry = (r: unknown): LedgerEntry => {
    const p = LedgerRow.safeParse(r);
    if (!p.success) throw bad('ledger', 'a ledger entry is not valid');
    return p.data;
  };
  const outcome = (r: unknown): StoredOutcome => {
    const p = OutcomeRow.safeParse(r);
    if (!p.success) throw bad('outcomes', 'a settled result is not valid');
    return p.data;
  };

  return {
    open(seed) {
      try {
        ({ db, state } = openFile(seed));
        problem = null;
        return clone(state);
      } catch (err) {
        problem = asDemoDataError(err, name);
        throw problem;
      }
    },
    committed() {
      if (state === null) throw problem ?? new Error('the store is not open');
      return clone(state);
    },
    commit(c) {
      const d = need();
      const at = now().toISOString();
      try {
        const result = d
          .transaction(() => {
            let entry: LedgerEntry | null = null;
            if (c.ledger) {
              const info = d
                .prepare(
                  'INSERT INTO ledger (idempotency_key, operation, target, changes, job_id, on_behalf_of, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
                )
                .run(
                  c.ledger.idempotency_key,
                  c.ledger.operation,
                  c.ledger.target,
                  JSON.stringify(c.ledger.changes),
                  c.ledger.job_id,
                  c.ledger.on_behalf_of,
                  at,
                );
              entry = { ...clone(c.ledger), seq: Number(info.lastInsertRowid), at };
            }
            const o: StoredOutcome = { ...clone(c.outcome), recorded_at: at };
            d.prepare(
              'INSERT INTO outcomes (idempotency_key, operation, status, http_status, result, fingerprint, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            ).run(
              o.idempotency_key,
              o.operation,
              o.status,
              o.http_status,
              JSON.stringify(o.result ?? null),
              o.fingerprint,
              at,
            );
            if (c.state !== null)
              d.prepare('UPDATE business_state SET doc = ?, updated_at = ? WHERE id = 1').run(
                JSON.stringify(c.state),
                at,
              );
            return { ledger: entry, outcome: o };
          })
          .immediate();
        if (c.state !== null) state = clone(c.state);
        return result;
      } catch (err) {
        throw new DemoDataWriteError(errorCodeOf(err));
      }
    },
    ledger() {
      return need().prepare('SELECT * FROM ledger ORDER BY seq').all().map(ledgerEntry);
    },
    settled(key) {
      const r = need().prepare('SELECT * FROM outcomes WHERE idempotency_key = ?').get(key);
      return r === undefined ? undefined : outcome(r);
    },
    reset(seed) {
      const at = now().toISOString();
      if (db) {
        const d = db;
        try {
          d.transaction(() => {
            d.prepare('UPDATE business_state SET doc = ?, updated_at = ? WHERE id = 1').run(
              JSON.stringify(seed),
              at,
            );
            setMeta(d, 'reset_at', at);
          }).immediate();
        } catch (err) {
          throw new DemoDataWriteError(errorCodeOf(err));
        }
        state = clone(seed);
        return { set_aside: null };
      }
      // The file could not be used: keep it (and its WAL) under a new name, start a new one.
      const aside = `${opts.file}.set-aside-${at.replace(/[:.]/g, '-')}`;
      try {
        for (const suffix of ['', '-wal', '-shm'])
          if (existsSync(opts.file + suffix)) renameSync(opts.file + suffix, aside + suffix);
      } catch (err) {
        throw new DemoDataWriteError(errorCodeOf(err));
      }
      try {
        ({ db, state } = openFile(() => seed));
        setMeta(db, 'reset_at', at);
      } catch (err) {
        problem = asDemoDataError(err, name);
        throw problem;
      }
      problem = null;
      return { set_aside: basename(aside) };
    },
    status(): DataStatus {
      const d = db;
      return {
        storage: 'file',
        state: problem ? problem.problem : 'ok',
        file: name,
        seeded_at: d ? meta(d, 'seeded_at') : null,
        reset_at: d ? meta(d, 'reset_at') : null,
        detail: problem ? problem.detail : null,
      };
    },
    close() {
      db?.close();
      db = null;
    },
  };
}
