/**
 * An asynchronous SqlSession over one pg client (inside a transaction) or the pool (single reads).
 * `?` placeholders become `$1..$n`; every statement is a named prepared statement, so each
 * connection parses and plans a given SQL text once.
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { Row, SqlSession, SqlValue } from '../sql/session.js';
import { POSTGRES_DIALECT } from './dialect.js';
import { fromDriver } from './errors.js';

interface Prepared {
  name: string;
  text: string;
}

const prepared = new Map<string, Prepared>();

/** Numbers the placeholders (our SQL never has `?` inside a literal) and names the statement. */
function prepare(sql: string): Prepared {
  let p = prepared.get(sql);
  if (!p) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    p = { name: `b_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    prepared.set(sql, p);
  }
  return p;
}

export interface PgSession extends SqlSession {
  /** True once an event was appended through this session (it needs sequencing after commit). */
  readonly appendedEvents: boolean;
  markEventAppended(): void;
}

export function createPgSession(target: Pool | PoolClient): PgSession {
  let appended = false;
  async function query(sql: string, params?: readonly SqlValue[]) {
    const p = prepare(sql);
    try {
      return await target.query<QueryResultRow>({
        name: p.name,
        text: p.text,
        values: (params ?? []) as unknown[],
      });
    } catch (err) {
      throw fromDriver(err);
    }
  }
  async function all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await query(sql, params)).rows as T[];
  }
  async function get<T extends object = Row>(
    sql: string,
    params?: readonly SqlValue[],
  ): Promise<T | undefined> {
    return (await query(sql, params)).rows[0] as T | undefined;
  }
  async function run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return (await query(sql, params)).rowCount ?? 0;
  }
  return {
    dialect: POSTGRES_DIALECT,
    get appendedEvents() {
      return appended;
    },
    markEventAppended() {
      appended = true;
    },
    all,
    get,
    run,
  };
}
