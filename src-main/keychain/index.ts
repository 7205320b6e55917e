/**
 * Credentials (Hub client/admin tokens, model API keys) in the OS keychain through keytar, under
 * the service name `bailing-desk`. When keytar is missing or no Secret Service answers, the
 * keychain reports `unavailable` with the reason; the app may then opt into session-only use
 * (secrets held in this process's memory, gone when it exits). A secret is never written to disk
 * by this module, and never logged.
 */
import type { KeychainReason, KeychainState } from '../../src-shared/states.js';
import { loadKeytar } from './keytar-loader.js';
export const KEYCHAIN_SERVICE = 'bailing-desk';

export const KEYCHAIN_ACCOUNTS = {
  hubClientToken: 'hub-client-token',
  hubAdminToken: 'hub-admin-token',
  remoteHubClientToken: 'remote-hub-client-token',
  modelApiKey: 'model-api-key',
  /** The embedded Hub's secret key (it seals the business systems' secrets in the Hub's store). */
  hubSecretKey: 'hub-secret-key',
} as const;

/** The subset of keytar used here (an injectable backend for tests and alternative stores). */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

export interface KeychainStatus {
  state: KeychainState;
  reason: string | null;
  /** The reason as a code (null when available). */
  reasonCode: KeychainReason | null;
  sessionOnly: boolean;
}

export class KeychainUnavailableError extends Error {
  readonly code = 'keychain_unavailable';
  constructor(reason: string) {
    super(
      `The OS keychain is unavailable (${reason}); choose session-only use to keep this secret until the app exits.`,
    );
    this.name = 'KeychainUnavailableError';
  }
}

export interface Keychain {
  status(): KeychainStatus;
  /** Opt into keeping secrets in memory for this run only (only meaningful when unavailable). */
  useSessionOnly(): void;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
  has(account: string): Promise<boolean>;
}

export interface KeychainOptions {
  service?: string;
  /** Load the backend; default imports keytar. Throwing means "keytar missing". */
  loadBackend?: () => Promise<KeytarLike>;
  /** Start in session-only mode if the keychain turns out to be unavailable. */
  sessionOnlyFallback?: boolean;
}

function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/\s+/g, ' ').slice(0, 300);
}

/** Probes the backend once (a read of this service's entries) and returns a ready keychain. */
export async function createKeychain(opts: KeychainOptions = {}): Promise<Keychain> {
  const service = opts.service ?? KEYCHAIN_SERVICE;
  let backend: KeytarLike | null = null;
  let reason: string | null = null;
  let reasonCode: KeychainReason | null = null;
  try {
    backend = await (opts.loadBackend ?? loadKeytar)();
  } catch (err) {
    reason = `keytar is not installed: ${describe(err)}`;
    reasonCode = 'keytar_missing';
  }
  if (backend) {
    try {
      await backend.findCredentials(service);
    } catch (err) {
      reason = `no Secret Service answered: ${describe(err)}`;
      reasonCode = 'secret_service_unavailable';
      backend = null;
    }
  }
  const memory = new Map<string, string>();
  let sessionOnly = backend === null && opts.sessionOnlyFallback === true;

  const requireWritable = () => {
    if (backend === null && !sessionOnly) throw new KeychainUnavailableError(reason ?? 'unknown');
  };

  return {
    status: () => ({
      state: backend ? 'available' : 'unavailable',
      reason,
      reasonCode,
      sessionOnly: backend === null && sessionOnly,
    }),
    useSessionOnly() {
      if (backend === null) sessionOnly = true;
    },
    async get(account) {
      if (backend) return backend.getPassword(service, account);
      return memory.get(account) ?? null;
    },
    async set(account, secret) {
      requireWritable();
      if (backend) await backend.setPassword(service, account, secret);
      else memory.set(account, secret);
    },
    async delete(account) {
      if (backend) await backend.deletePassword(service, account);
      memory.delete(account);
    },
    async has(account) {
      if (backend) return (await backend.getPassword(service, account)) !== null;
      return memory.has(account);
    },
  };
}
