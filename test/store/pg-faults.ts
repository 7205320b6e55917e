/** Faults injected into a test's PostgreSQL database, for the group-commit tests. */
import type pg from 'pg';

/**
 * A trigger refusing the insert of the invocation row `invocationId` with SQLSTATE P0001: at once
 * (`at: 'insert'`, the statement fails) or deferred to COMMIT (`at: 'commit'`, checked after every
 * statement of the transaction succeeded).
 */
async function refuseInvocationRow(
  db: pg.Client,
  invocationId: string,
  at: 'insert' | 'commit',
): Promise<void> {
  const name = at === 'commit' ? 'fail_at_commit' : 'refuse_insert';
  const trigger =
    at === 'commit'
      ? `CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT ON invocations DEFERRABLE INITIALLY DEFERRED`
      : `CREATE TRIGGER ${name} BEFORE INSERT ON invocations`;
  await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.invocation_id = '${invocationId}' THEN
        RAISE EXCEPTION 'refused' USING ERRCODE = 'P0001';
      END IF;
      RETURN NEW;
    END $$;
    ${trigger} FOR EACH ROW EXECUTE FUNCTION ${name}();`);
}

/** The insert of `invocationId` fails at COMMIT, after every statement of its transaction succeeded. */
export const failAtCommit = (db: pg.Client, invocationId: string) =>
  refuseInvocationRow(db, invocationId, 'commit');

/** The insert of `invocationId` fails at once, in its statement. */
export const refuseInsert = (db: pg.Client, invocationId: string) =>
  refuseInvocationRow(db, invocationId, 'insert');
