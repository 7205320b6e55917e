// Types of ./layers.mjs (the import layers, docs/architecture.md#layers).
export interface Layer {
  /** `src-main/<folder>` or a top-level source folder. */
  layer: string;
  /** The folders it may import from besides itself. */
  may: string[];
  /** A regex (source) of the packages it may not import. */
  packages: string;
}

export const TOP: string[];
export const MAIN: string[];
export const LAYERS: Layer[];
export const FOLDERS: string[];
export function folderOf(path: string): string | null;
export function restrictedImports(entry: Layer): {
  patterns: Array<{ regex: string; message: string }>;
};
