/** Faults injected into a test's PostgreSQL database, for the group-commit tests. */
import type pg from 'pg';

/**
 * A deferred constraint trigger refusing the invocation row `invocationId` with SQLSTATE P0001: it
 * is checked at COMMIT, after every statement of the transaction succeeded.
 */
export async function failAtCommit(db: pg.Client, invocationId: string): Promise<void> {
  await db.query(`CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.invocation_id = '${invocationId}' THEN
        RAISE EXCEPTION 'refused at commit' USING ERRCODE = 'P0001';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON invocations
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit();`);
}
