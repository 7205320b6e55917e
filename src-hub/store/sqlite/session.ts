/**
 * A synchronous SqlSession over one better-sqlite3 connection. Each distinct SQL text is prepared
 * once per connection and reused (the statement cache), never re-prepared per call.
 */
import type Database from 'better-sqlite3';
import type { Row, SqlSession, SqlValue } from '../sql/session.js';
import { SQLITE_DIALECT } from './dialect.js';

export function createSqliteSession(db: Database.Database): SqlSession {
  const cache = new Map<string, Database.Statement>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const params = (p: readonly SqlValue[] | undefined) => (p ?? []) as unknown[];
  return {
    dialect: SQLITE_DIALECT,
    all: <T extends object = Row>(sql: string, p?: readonly SqlValue[]) => stmt(sql).all(...params(p)) as T[],
    get: <T extends object = Row>(sql: string, p?: readonly SqlValue[]) =>
      stmt(sql).get(...params(p)) as T | undefined,
    run: (sql: string, p?: readonly SqlValue[]) => stmt(sql).run(...params(p)).changes,
    write: (sql: string, p?: readonly SqlValue[], expectChanged?: number) => {
      const n = stmt(sql).run(...params(p)).changes;
      if (expectChanged !== undefined && n !== expectChanged)
        throw new Error(`a store write changed ${n} rows where ${expectChanged} were expected`);
    },
  };
}
