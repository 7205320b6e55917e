#!/usr/bin/env node
// The packaging step that flips Electron's fuses on the app's Electron binary (docs/operations.md,
// "Packaging: Electron fuses"): no running as plain Node, no NODE_OPTIONS and no --inspect, cookies
// encrypted, the app loaded only from its ASAR archive and that archive's integrity checked.
//
//   node scripts/electron-fuses.mjs PATH/TO/PACKAGED/ELECTRON   (npm run package:fuses -- PATH)
//
// Run it on the packaged copy of Electron (beside app.asar), never on node_modules' development
// binary: with OnlyLoadAppFromAsar set, `electron .` no longer starts the unpacked app.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flipFuses, FuseV1Options, FuseVersion, getCurrentFuseWire } from '@electron/fuses';

/** Every fuse this Electron knows, set explicitly (strict: a new fuse must be decided here). */
export const FUSES = {
  version: FuseVersion.V1,
  strictlyRequireAllFuses: true,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
};

/** Flips the fuses and reads them back; answers the wire as {fuse name: 'enabled'|'disabled'|...}. */
export async function applyFuses(binary) {
  await flipFuses(binary, FUSES);
  const wire = await getCurrentFuseWire(binary);
  const names = Object.keys(FuseV1Options).filter((k) => Number.isNaN(Number(k)));
  const state = { 48: 'disabled', 49: 'enabled', 114: 'removed' };
  return Object.fromEntries(names.map((n) => [n, state[wire[FuseV1Options[n]]] ?? 'unknown']));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: node scripts/electron-fuses.mjs PATH/TO/PACKAGED/ELECTRON');
    process.exit(2);
  }
  const binary = resolve(target);
  if (!existsSync(binary)) {
    console.error(`No Electron binary at ${binary}: nothing was changed.`);
    process.exit(2);
  }
  applyFuses(binary).then(
    (wire) => console.log(JSON.stringify({ binary, fuses: wire }, null, 2)),
    (err) => {
      console.error(
        `Could not flip the fuses of ${binary}: ${err instanceof Error ? err.message : String(err)}`,
      );
      process.exit(1);
    },
  );
}
