/**
 * The systems of a task's boundary, as the task routes serve a task to its caller: each
 * authorization's system by name and kind, with `system_retired_at`. Read from the Hub's own
 * records, so a task naming a retired system still names it (the agent list of authorizations no
 * longer carries a retired system's). Only authorizations granted to the task's client are named —
 * the ones its boundary was checked against — and only where a task is served: the `task.changed`
 * views the stores render with every permit batch read nothing more for them.
 */
import type { TaskSystem } from '../../src-shared/hub-api.js';
import type { AuthorizationRecord, HubStore, SystemRecord, TaskRecord } from '../store/types.js';

type SystemReader = Pick<HubStore, 'listAuthorizations' | 'getSystem'>;

/** Boundary systems of tasks; each client's grants and each system are read once per reader. */
export function boundarySystemsReader(store: SystemReader): (task: TaskRecord) => Promise<TaskSystem[]> {
  const grants = new Map<string, Promise<Map<string, AuthorizationRecord>>>();
  const systems = new Map<string, Promise<SystemRecord | null>>();
  const grantsOf = (clientId: string) => {
    let found = grants.get(clientId);
    if (!found) {
      found = store
        .listAuthorizations(clientId)
        .then((list) => new Map(list.map((a) => [a.authorization_ref, a])));
      grants.set(clientId, found);
    }
    return found;
  };
  const systemOf = (systemId: string) => {
    let found = systems.get(systemId);
    if (!found) systems.set(systemId, (found = store.getSystem(systemId)));
    return found;
  };
  return async (task) => {
    const granted = await grantsOf(task.client_id);
    const named = await Promise.all(
      task.boundary.authorizations.map(async ({ authorization_ref }): Promise<TaskSystem | null> => {
        const auth = granted.get(authorization_ref);
        const sys = auth ? await systemOf(auth.system_id) : null;
        if (!auth || !sys) return null;
        return {
          authorization_ref,
          system_id: sys.system_id,
          system_name: sys.name,
          system_kind: sys.kind,
          system_retired_at: sys.retired_at,
        };
      }),
    );
    return named.filter((s): s is TaskSystem => s !== null);
  };
}
