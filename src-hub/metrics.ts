/**
 * In-memory counters for tests and operators (GET /admin/v1/metrics): agent requests per client
 * and route, invokes, resumes and business dispatches. They reset when the Hub process restarts.
 */
export interface ClientMetrics {
  requests: Record<string, number>;
  requests_total: number;
  invokes: number;
  resumes: number;
  dispatches: number;
}

export interface Metrics {
  request(clientId: string, route: string): void;
  count(clientId: string, what: 'invokes' | 'resumes' | 'dispatches'): void;
  snapshot(): { started_at: string; clients: Record<string, ClientMetrics> };
}

export function createMetrics(now: () => Date): Metrics {
  const startedAt = now().toISOString();
  const clients = new Map<string, ClientMetrics>();
  const of = (id: string) => {
    let m = clients.get(id);
    if (!m) clients.set(id, (m = { requests: {}, requests_total: 0, invokes: 0, resumes: 0, dispatches: 0 }));
    return m;
  };
  return {
    request(clientId, route) {
      const m = of(clientId);
      m.requests[route] = (m.requests[route] ?? 0) + 1;
      m.requests_total += 1;
    },
    count(clientId, what) {
      of(clientId)[what] += 1;
    },
    snapshot() {
      return {
        started_at: startedAt,
        clients: Object.fromEntries([...clients].map(([k, v]) => [k, structuredClone(v)])),
      };
    },
  };
}
