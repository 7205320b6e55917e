// The import layers of the project (docs/architecture.md#layers), in one table read by both
// eslint.config.js (no-restricted-imports, so editors show a crossing as it is typed) and
// test/architecture/import-boundaries.test.ts (which fails the build on one, and on a src-main
// folder that has no layer).

/** Top-level source folders. */
export const TOP = ['src-shared', 'src-main', 'src-preload', 'src-renderer', 'src-hub', 'demo'];

/** The folders of src-main, each a layer of its own. */
export const MAIN = [
  'app',
  'archive',
  'browser-host',
  'embedded',
  'handlers',
  'hub-client',
  'journal',
  'keychain',
  'runtime',
  'settings',
];

const NODE_BUILTIN = '^(node:|fs$|path$|os$|child_process$|net$|http$|https$|crypto$)';

/**
 * Each layer: the folders it may import from (besides itself) and the packages it may not import.
 * A folder is `src-main/<name>` or a top-level folder.
 */
export const LAYERS = [
  { layer: 'src-shared', may: [], packages: '^(electron|better-sqlite3|keytar|react|ws$|openai)' },
  { layer: 'src-main/hub-client', may: ['src-shared'], packages: '^(electron|keytar|better-sqlite3)' },
  { layer: 'src-main/journal', may: ['src-shared'], packages: '^(electron|keytar)' },
  { layer: 'src-main/archive', may: ['src-shared'], packages: '^(electron|keytar)' },
  { layer: 'src-main/keychain', may: ['src-shared'], packages: '^(electron|better-sqlite3)' },
  {
    layer: 'src-main/runtime',
    may: ['src-shared', 'src-main/hub-client', 'src-main/journal', 'src-main/archive'],
    packages: '^(electron|keytar)',
  },
  {
    layer: 'src-main/settings',
    may: ['src-shared', 'src-main/archive', 'src-main/keychain', 'src-main/runtime'],
    packages: '^(electron|keytar|better-sqlite3)',
  },
  {
    layer: 'src-main/handlers',
    may: ['src-shared', 'src-main/hub-client', 'src-main/keychain', 'src-main/runtime', 'src-main/settings'],
    packages: '^(electron|keytar|better-sqlite3)',
  },
  {
    layer: 'src-main/embedded',
    may: [
      'src-shared',
      'src-main/hub-client',
      'src-main/journal',
      'src-main/archive',
      'src-main/keychain',
      'src-main/runtime',
      'src-main/settings',
      'src-main/handlers',
      'src-hub',
      'demo',
    ],
    packages: '^(electron|keytar)',
  },
  {
    layer: 'src-main/browser-host',
    may: ['src-shared', 'src-main/handlers', 'src-main/embedded'],
    packages: '^(electron|keytar|better-sqlite3)',
  },
  {
    layer: 'src-main/app',
    may: ['src-shared', 'src-main/handlers', 'src-main/embedded', 'src-main/browser-host'],
    packages: '^(keytar|better-sqlite3)',
  },
  { layer: 'src-preload', may: ['src-shared'], packages: '^(keytar|better-sqlite3)' },
  {
    layer: 'src-renderer',
    may: ['src-shared'],
    packages: `${NODE_BUILTIN}|^(electron|better-sqlite3|keytar|ws$|openai)`,
  },
  { layer: 'src-hub', may: ['src-shared'], packages: '^(electron|keytar)' },
  { layer: 'demo', may: ['src-shared', 'src-hub'], packages: '^(electron|keytar)' },
];

/** Every folder a relative import can land in, longest first (src-main/<x> before src-main). */
export const FOLDERS = [...MAIN.map((m) => `src-main/${m}`), ...TOP].sort((a, b) => b.length - a.length);

/** The layer folder a repository-relative path belongs to, or null. */
export function folderOf(path) {
  return FOLDERS.find((f) => path === f || path.startsWith(`${f}/`)) ?? null;
}

/**
 * The no-restricted-imports options of a layer: a regex per folder it may not reach (matched on
 * relative specifiers, by the folder's name after any number of `../`), and its forbidden packages.
 */
export function restrictedImports(entry) {
  const others = FOLDERS.filter((f) => f !== entry.layer && !entry.may.includes(f));
  // src-main itself is not a layer (its folders are); a src-main/<x> layer is named by <x> alone.
  const names = others
    .filter((f) => f !== 'src-main')
    .map((f) => (f.startsWith('src-main/') ? f.slice(9) : f));
  return {
    patterns: [
      {
        regex: `^(\\.\\./)+(src-main/)?(${names.join('|')})(/|$)`,
        message: `${entry.layer} may import only ${['itself', ...entry.may].join(', ')} (docs/architecture.md#layers).`,
      },
      {
        regex: entry.packages,
        message: `${entry.layer} may not import this package (docs/architecture.md#layers).`,
      },
    ],
  };
}
