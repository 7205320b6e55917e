// Lets @modelcontextprotocol/conformance run on Node 20: its bundle imports `globSync` from `fs`,
// which Node has only from 22 on, and uses it only for its `tier-check` command (never for the
// server scenarios run here). This resolve hook hands that package a `fs` with a `globSync` that
// says so if it is ever called; every other module gets Node's own `fs`.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    const SHIM = 'data:text/javascript,' + encodeURIComponent(
      "export * from 'node:fs'; import fs from 'node:fs'; export default fs;" +
      "export function globSync() { throw new Error('fs.globSync needs Node 22 (conformance tier-check only)'); }"
    );
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs') && (context.parentURL ?? '').includes('/@modelcontextprotocol/conformance/'))
        return { url: SHIM, shortCircuit: true };
      return next(specifier, context);
    }
  `)}`,
  import.meta.url,
);
