/**
 * The Hub's command line. The store is `--data DIR` (SQLite) or `--store postgres://…` (PostgreSQL,
 * also config `store.url`; several Hubs may serve one database).
 *   npm run hub -- --port P --data DIR|--store URL [--config FILE] [--host H] [--instance NAME]   serve
 *   npm run hub -- <command> --data DIR|--store URL [...]                 operator commands, same store:
 *     list-approvals [--state pending|approved|denied]
 *     approve <approval_id> [--decision-id ID] [--note TEXT]
 *     deny <approval_id> [--decision-id ID] [--note TEXT]
 *     create-client --name NAME [--client-id ID]        prints the token once
 *     register-system --file REQUEST.json              an HTTP system or an MCP server (docs/mcp.md)
 *     retire-system <system_id>                        no new calls, out of every catalogue (docs/hub-api.md)
 *     list-systems | list-authorizations               the admin views, retired systems' too (with their retired_at)
 *     list-tasks
 *     pause-task <task_id> | continue-task <task_id> | cancel-task <task_id>
 *     rotate-secret-key [--secret-key-file FILE] [--new-secret-key-file FILE]   (the Hub stopped)
 * The secret key sealing the business systems' secrets: BAILING_HUB_SECRET_KEY, --secret-key-file
 * FILE (config `secret_key_file`, BAILING_HUB_SECRET_KEY_FILE), or a SQLite Hub's default
 * `<data>/hub-secret.key`; it is never printed (docs/operations.md).
 * The admin token for the HTTP admin API comes from the config file (`admin_token`) or the
 * BAILING_HUB_ADMIN_TOKEN environment variable; it is never printed.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { authorizationView, createClient } from './admin/service.js';
import { decideApproval } from './approvals/decide.js';
import { approvalViews } from './approvals/view.js';
import { loadConfigFile, type HubConfig } from './config.js';
import { RegisterAnySystemRequestSchema } from '../src-shared/hub-api.js';
import { registerMcpSystem } from './mcp/register.js';
import { retireSystem } from './systems/retire.js';
import { registerSystem, systemView } from './systems/service.js';
import { prepareStoreSecrets, resolveSecretKey, rotateSecretKey } from './secrets/index.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { isPostgresUrl } from './store/open-store.js';
import { createHub, openHubContext } from './index.js';
import { changeTask, listTaskViews } from './tasks/service.js';
import { APPROVAL_STATES, type ApprovalState } from '../src-shared/states.js';

interface Parsed {
  command: string;
  positional: string[];
  flags: Map<string, string>;
}

function parse(argv: string[]): Parsed {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else {
        const v = argv[i + 1];
        if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value`);
        flags.set(a.slice(2), v);
        i++;
      }
    } else positional.push(a);
  }
  return { command: positional.shift() ?? 'serve', positional, flags };
}

const print = (v: unknown) => process.stdout.write(JSON.stringify(v, null, 2) + '\n');

/** The store flags: --data DIR (SQLite) or --store URL (PostgreSQL); the config file may name the URL. */
function storeOf(p: Parsed, config?: HubConfig): { dataDir?: string; storeUrl?: string } {
  const dataDir = p.flags.get('data');
  const storeUrl = p.flags.get('store') ?? process.env.BAILING_HUB_STORE_URL ?? config?.store?.url;
  if (storeUrl !== undefined && !isPostgresUrl(storeUrl))
    throw new Error('--store must be a postgres:// or postgresql:// URL');
  if (!dataDir && !storeUrl) throw new Error('--data DIR or --store postgres://… is required');
  return storeUrl ? { storeUrl, ...(dataDir ? { dataDir } : {}) } : { dataDir };
}

async function serve(p: Parsed): Promise<void> {
  const port = Number(p.flags.get('port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be 0..65535');
  const configPath = p.flags.get('config');
  const config = configPath ? loadConfigFile(configPath) : undefined;
  const store = storeOf(p, config);
  const logger = pino({
    level: process.env.HUB_LOG_LEVEL ?? 'info',
    redact: {
      paths: ['req.headers.authorization', '*.signing_secret', '*.token', '*.admin_token'],
      censor: '[redacted]',
    },
    // never log query strings: a client might (wrongly) put a token there
    serializers: {
      req: (req: { method?: string; url?: string; id?: string }) => ({
        method: req.method,
        url: String(req.url ?? '').split('?')[0],
        id: req.id,
      }),
    },
  });
  const hub = await createHub({
    ...store,
    ...(p.flags.get('instance') ? { instanceId: p.flags.get('instance') } : {}),
    port,
    host: p.flags.get('host') ?? '127.0.0.1',
    config,
    adminToken: process.env.BAILING_HUB_ADMIN_TOKEN || undefined,
    ...(p.flags.get('secret-key-file') ? { secretKeyFile: p.flags.get('secret-key-file') } : {}),
    logger,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'hub stopping');
    hub.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: String(err) }, 'hub stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * A new secret key and every secret re-sealed under it. The Hub must be stopped: SQLite holds the
 * data-directory lock for the whole rotation; PostgreSQL refuses while an instance holds a lease.
 */
async function rotateKey(p: Parsed): Promise<void> {
  const configPath = p.flags.get('config');
  const config = configPath ? loadConfigFile(configPath) : undefined;
  const where = storeOf(p, config);
  const unlock = where.storeUrl ? () => undefined : lockDataDir(where.dataDir!);
  try {
    const { ctx } = await openHubContext({ ...where, config });
    try {
      const current = resolveSecretKey({
        file: p.flags.get('secret-key-file') ?? config?.secret_key_file,
        dataDir: where.storeUrl ? undefined : where.dataDir,
      });
      const newKeyFile = p.flags.get('new-secret-key-file');
      const result = await rotateSecretKey({
        store: ctx.store,
        current,
        ...(newKeyFile ? { newKeyFile } : {}),
        actor: `operator:${process.env.USER ?? 'cli'}`,
      });
      print({
        ...result,
        next_step:
          newKeyFile || current.source === 'env'
            ? `start the Hub with the new key (--secret-key-file ${result.key_file}, or its content in BAILING_HUB_SECRET_KEY)`
            : `the key file ${result.key_file} holds the new key; start the Hub as before`,
      });
    } finally {
      await ctx.store.close();
    }
  } finally {
    unlock();
  }
}

async function operator(p: Parsed): Promise<void> {
  if (p.command === 'rotate-secret-key') return rotateKey(p);
  const configPath = p.flags.get('config');
  const config = configPath ? loadConfigFile(configPath) : undefined;
  const where = storeOf(p, config);
  const { ctx } = await openHubContext(where);
  // registering stores a secret: it is sealed under the Hub's secret key, which must open the store
  if (p.command === 'register-system')
    ctx.secrets = await prepareStoreSecrets(
      ctx.store,
      resolveSecretKey({
        file: p.flags.get('secret-key-file') ?? config?.secret_key_file,
        dataDir: where.storeUrl ? undefined : where.dataDir,
      }),
      { onMismatch: 'refuse', logger: pino({ level: 'silent' }) },
    );
  const actor = `operator:${process.env.USER ?? 'cli'}`;
  const arg = (name: string) => {
    const v = p.positional[0];
    if (!v) throw new Error(`${p.command} needs <${name}>`);
    return v;
  };
  try {
    switch (p.command) {
      case 'list-approvals': {
        const state = p.flags.get('state');
        if (state && !(APPROVAL_STATES as readonly string[]).includes(state))
          throw new Error('--state must be pending, approved or denied');
        print({
          approvals: await approvalViews(
            ctx.store,
            await ctx.store.listApprovals(state as ApprovalState | undefined),
          ),
        });
        break;
      }
      case 'approve':
      case 'deny':
        print(
          await decideApproval(
            ctx,
            arg('approval_id'),
            {
              decision_id: p.flags.get('decision-id') ?? `cli-${randomUUID()}`,
              decision: p.command,
              note: p.flags.get('note'),
            },
            actor,
          ),
        );
        break;
      case 'create-client': {
        const name = p.flags.get('name');
        if (!name) throw new Error('create-client needs --name NAME');
        print(await createClient(ctx, { name, client_id: p.flags.get('client-id') }, actor));
        break;
      }
      case 'register-system': {
        const file = p.flags.get('file');
        if (!file) throw new Error('register-system needs --file REQUEST.json');
        const parsed = RegisterAnySystemRequestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
        if (!parsed.success)
          throw new Error(
            `invalid registration ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
          );
        const req = parsed.data;
        print(
          req.kind === 'mcp'
            ? await registerMcpSystem(ctx, req, actor)
            : await registerSystem(ctx, req, actor),
        );
        break;
      }
      case 'retire-system':
        print(await retireSystem(ctx, arg('system_id'), actor));
        break;
      // what GET /admin/v1/systems and /admin/v1/authorizations answer: history included
      case 'list-systems':
        print({ systems: await Promise.all((await ctx.store.listSystems()).map((s) => systemView(ctx, s))) });
        break;
      case 'list-authorizations':
        print({
          authorizations: await Promise.all(
            (await ctx.store.listAuthorizations()).map((a) => authorizationView(ctx, a)),
          ),
        });
        break;
      case 'list-tasks':
        print({ tasks: await listTaskViews(ctx, null) });
        break;
      case 'pause-task':
        print(await changeTask(ctx, null, arg('task_id'), 'pause', actor));
        break;
      case 'continue-task':
        print(await changeTask(ctx, null, arg('task_id'), 'continue', actor));
        break;
      case 'cancel-task':
        print(await changeTask(ctx, null, arg('task_id'), 'cancel', actor));
        break;
      default:
        throw new Error(`unknown command ${p.command}`);
    }
  } finally {
    await ctx.store.close();
  }
}

const USAGE = `Bailing Hub
  npm run hub -- --port P STORE [--config FILE] [--host H] [--instance NAME]   serve (SIGTERM/SIGINT stop it cleanly)
  npm run hub -- list-approvals STORE [--state pending|approved|denied]
  npm run hub -- approve|deny <approval_id> STORE [--decision-id ID] [--note TEXT]
  npm run hub -- create-client --name NAME STORE [--client-id ID]
  npm run hub -- register-system --file REQUEST.json STORE   (an HTTP system, or an MCP server: docs/mcp.md)
  npm run hub -- retire-system <system_id> STORE   (refused while its calls are unresolved; register again to revive)
  npm run hub -- list-systems|list-authorizations STORE   (retired systems' too, with retired_at / system_retired_at)
  npm run hub -- list-tasks STORE
  npm run hub -- pause-task|continue-task|cancel-task <task_id> STORE
  npm run hub -- rotate-secret-key STORE [--secret-key-file FILE] [--new-secret-key-file FILE]
STORE is --data DIR (SQLite, one serving Hub per directory) or --store postgres://user@host:port/db
(PostgreSQL, any number of Hubs; also config "store": {"url": ...} or BAILING_HUB_STORE_URL; the
password from PGPASSWORD or ~/.pgpass). --instance names this Hub among those sharing a store.
Admin token for the HTTP admin API: config "admin_token" or BAILING_HUB_ADMIN_TOKEN. The secret key
sealing business systems' secrets: BAILING_HUB_SECRET_KEY, --secret-key-file FILE (config
"secret_key_file", BAILING_HUB_SECRET_KEY_FILE), else (SQLite) <data>/hub-secret.key, made on first
start. rotate-secret-key needs the Hub stopped. See docs/hub-api.md and docs/operations.md.
`;

async function main(): Promise<void> {
  // Everything this process creates is its owner's only (files 0600, directories 0700).
  process.umask(0o077);
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const p = parse(argv);
  if (p.command === 'serve') return serve(p);
  return operator(p);
}

main().catch((err: unknown) => {
  const e = err as { code?: string; message?: string };
  process.stderr.write(`${e.code ? e.code + ': ' : ''}${e.message ?? String(err)}\n`);
  process.exit(e.code ? 2 : 1);
});
