// The demo systems as their own process (demo/cli.ts --data DIR), SIGKILLed: a write the shop
// acknowledged is there after the restart, and so is a write committed but never answered (killed
// between the write and the answer) — exactly once: the look-up says it happened and a repeat of the
// same call writes nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEntry, RequestLogEntry } from '../../demo/types.js';
import { call, json } from './helpers.js';

const root = resolve(import.meta.dirname, '../..');

interface Running {
  child: ChildProcess;
  shop: { systemId: string; url: string; secret: string };
  exited: Promise<unknown>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function startCli(dir: string, extra: string[] = []): Promise<Running> {
  const config = join(dir, `systems-${children.length}.json`);
  // One Node process (no tsx wrapper), so the SIGKILL ends the servers themselves.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'demo/cli.ts'),
      '--data',
      join(dir, 'demo'),
      '--config-out',
      config,
      ...extra,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const exited = new Promise((res) => child.on('exit', res));
  let out = '';
  await new Promise<void>((res, rej) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('demo systems ready')) res();
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => rej(new Error(`demo systems exited: ${out}`)));
  });
  expect(out).toContain(`business data kept in ${join(dir, 'demo')}`);
  const doc = JSON.parse(readFileSync(config, 'utf8')) as {
    systems: { system_id: string; base_url: string; signing_secret: string }[];
  };
  const a = doc.systems.find((s) => s.system_id === 'shop-a');
  if (!a) throw new Error('no shop-a in the config');
  return { child, exited, shop: { systemId: 'shop-a', url: a.base_url, secret: a.signing_secret } };
}

async function sigkill(r: Running): Promise<void> {
  r.child.kill('SIGKILL');
  await r.exited;
}

const ledger = async (r: Running) =>
  ((await (await fetch(`${r.shop.url}/__demo/ledger`)).json()) as { ledger: LedgerEntry[] }).ledger;
const requests = async (r: Running) =>
  ((await (await fetch(`${r.shop.url}/__demo/requests`)).json()) as { requests: RequestLogEntry[] }).requests;
const description = async (r: Running, id: number) =>
  ((await call(r.shop, { method: 'GET', path: `/products/${id}` })).body as { description: string })
    .description;

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'demo-crash-'));
  dirs.push(d);
  return d;
}

describe('demo data across a SIGKILL of the demo process', () => {
  it('a write acknowledged before the SIGKILL is there after the restart', async () => {
    const dir = tempDir();
    const first = await startCli(dir);
    const w = await call(first.shop, {
      method: 'PATCH',
      path: '/products/13/content',
      key: 'ack-then-kill-01',
      body: json({ description: 'Acknowledged, then the process was killed.' }),
    });
    expect(w.status).toBe(200);
    await sigkill(first);

    const second = await startCli(dir);
    expect(await description(second, 13)).toBe('Acknowledged, then the process was killed.');
    expect((await ledger(second)).map((e) => e.idempotency_key)).toEqual(['ack-then-kill-01']);
  });

  it('killed between the write and the answer: the write is kept once; the look-up says it happened; a repeat writes nothing', async () => {
    const dir = tempDir();
    const first = await startCli(dir);
    const fault = await fetch(`${first.shop.url}/__demo/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json({ operation: 'update_product_content', kind: 'hang_after_commit' }),
    });
    expect(fault.status).toBe(200);
    const body = json({ description: 'Committed; the answer never left.' });
    const pending = call(first.shop, {
      method: 'PATCH',
      path: '/products/42/content',
      key: 'kill-mid-answer-1',
      body,
    }).then(
      () => 'answered',
      () => 'connection lost',
    );
    // Event-driven wait: the shop's own request log says the write is committed and unanswered.
    for (;;) {
      const r = (await requests(first)).find((e) => e.idempotency_key === 'kill-mid-answer-1');
      if (r?.committed && r.outcome === 'hung') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    await sigkill(first);
    expect(await pending).toBe('connection lost');

    // Same ports and signing secrets (what a Hub has registered), same data folder.
    const ports = (u: string) => new URL(u).port;
    const second = await startCli(dir, [
      '--shop-a-port',
      ports(first.shop.url),
      '--secrets-file',
      join(dir, 'systems-0.json'),
    ]);
    expect(second.shop).toEqual(first.shop);
    expect(await description(second, 42)).toBe('Committed; the answer never left.');
    expect((await ledger(second)).map((e) => e.idempotency_key)).toEqual(['kill-mid-answer-1']);
    const lookup = await call(second.shop, {
      method: 'GET',
      path: '/.well-known/bailing/operations/kill-mid-answer-1',
    });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ status: 'succeeded', operation: 'update_product_content' });
    const again = await call(second.shop, {
      method: 'PATCH',
      path: '/products/42/content',
      key: 'kill-mid-answer-1',
      body,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-bailing-idempotent-replay')).toBe('true');
    expect(await ledger(second)).toHaveLength(1);
  });
});
