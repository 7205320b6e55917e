/** Runs: the Hub's execution context of one turn on one authorization. */
import type { RunRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toRun } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';

function* readRun(s: SqlSession, runId: string): Step<RunRecord | null> {
  const row = yield* io(s.get<Row>('SELECT * FROM runs WHERE run_id = ?', [runId]));
  return row ? toRun(row) : null;
}

export function* createRun({ sql }: OpEnv, r: RunRecord): Step<void> {
  yield* io(
    sql.run(
      `INSERT INTO runs (run_id, client_id, agent_session_id, turn_id, authorization_ref, state, created_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.run_id,
        r.client_id,
        r.agent_session_id,
        r.turn_id,
        r.authorization_ref,
        r.state,
        r.created_at,
        r.ended_at,
      ],
    ),
  );
}

export function* getRun({ sql }: OpEnv, runId: string): Step<RunRecord | null> {
  return yield* readRun(sql, runId);
}

export function* endRun({ sql }: OpEnv, runId: string, at: string): Step<RunRecord | null> {
  yield* io(
    sql.run("UPDATE runs SET state = 'ended', ended_at = ? WHERE run_id = ? AND state = 'open'", [at, runId]),
  );
  return yield* readRun(sql, runId);
}
