/**
 * Whether the Electron suites can run here (scripts/electron-env.mjs, shared with `npm start`): the
 * binary, found without triggering its download, and — where there is one — whether the native
 * modules load in it. No binary: the suites report a skip with that reason. A binary whose native
 * modules were built for Node: the suites fail at once with the ABI message and the rebuild
 * command, instead of timing out inside a window that cannot open its database.
 */
import { electronBinary as findBinary, nativeModulesFit, REBUILD_HINT } from '../../scripts/electron-env.mjs';

export function electronBinary(): string | null {
  return findBinary();
}

/** Throws, with the reason and the fix, when the binary cannot load the app's native modules. */
export function assertElectronRunnable(binary: string): void {
  const fit = nativeModulesFit(binary);
  if (!fit.ok)
    throw new Error(`Electron ${binary} cannot load the app's native modules (${fit.why}). ${REBUILD_HINT}`);
}
