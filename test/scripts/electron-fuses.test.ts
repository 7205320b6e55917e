/**
 * The packaging step's fuses (scripts/electron-fuses.mjs), flipped by the real @electron/fuses on a
 * file laid out like an Electron binary's fuse wire (the Electron binary cannot be fetched here):
 * every fuse is set as docs/operations.md says and read back from the file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyFuses } from '../../scripts/electron-fuses.mjs';

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const dir = mkdtempSync(join(tmpdir(), 'bailing-fuses-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Junk, the sentinel, wire version 1, eight fuses as a stock Electron ships them, more junk. */
function fakeElectron(name: string): string {
  const file = join(dir, name);
  const stock = '10111000'; // RunAsNode on, cookie encryption off, NODE_OPTIONS on, --inspect on, ...
  writeFileSync(
    file,
    Buffer.concat([
      Buffer.alloc(4096, 0x7f),
      Buffer.from(SENTINEL, 'latin1'),
      Buffer.from([1, stock.length]),
      Buffer.from(stock, 'latin1'),
      Buffer.alloc(4096, 0x7f),
    ]),
  );
  return file;
}

describe('the Electron fuses packaging step', () => {
  it('turns RunAsNode, NODE_OPTIONS and --inspect off, cookie encryption, ASAR integrity and ASAR-only on', async () => {
    const file = fakeElectron('electron');
    const wire = await applyFuses(file);
    expect(wire).toEqual({
      RunAsNode: 'disabled',
      EnableCookieEncryption: 'enabled',
      EnableNodeOptionsEnvironmentVariable: 'disabled',
      EnableNodeCliInspectArguments: 'disabled',
      EnableEmbeddedAsarIntegrityValidation: 'enabled',
      OnlyLoadAppFromAsar: 'enabled',
      LoadBrowserProcessSpecificV8Snapshot: 'disabled',
      GrantFileProtocolExtraPrivileges: 'disabled',
    });
    const bytes = readFileSync(file);
    const at = bytes.indexOf(SENTINEL) + SENTINEL.length + 2;
    expect(bytes.subarray(at, at + 8).toString('latin1')).toBe('01001100');
  });

  it('as a command: package:fuses on a path prints the wire; a missing binary changes nothing and says so', () => {
    const root = resolve(import.meta.dirname, '../..');
    const file = fakeElectron('electron-cli');
    const ok = spawnSync(process.execPath, ['scripts/electron-fuses.mjs', file], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      fuses: { RunAsNode: 'disabled', OnlyLoadAppFromAsar: 'enabled' },
    });
    const missing = spawnSync(process.execPath, ['scripts/electron-fuses.mjs', join(dir, 'nope')], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('nothing was changed');
  });
});
