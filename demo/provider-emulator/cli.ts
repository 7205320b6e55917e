/**
 * Run the provider emulator as its own process:
 *   tsx demo/provider-emulator/cli.ts --mode deepseek-thinking --mode names-repeated \
 *     [--script script.json] [--port 0] [--model name …] [--api-key-file FILE]
 * Prints one JSON line `{"url", "port", "modes"}` once listening; SIGTERM/SIGINT close it.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseScriptJson } from '../scripted-model/script.js';
import { PROVIDER_MODE_NAMES, type ProviderMode } from './modes.js';
import { startProviderEmulator } from './server.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', multiple: true },
    script: { type: 'string' },
    port: { type: 'string' },
    model: { type: 'string', multiple: true },
    'api-key-file': { type: 'string' },
  },
});
const modes = (values.mode ?? ['openai-strict']) as ProviderMode[];
const unknown = modes.filter((m) => !PROVIDER_MODE_NAMES.includes(m));
if (unknown.length > 0) {
  process.stderr.write(`unknown mode(s): ${unknown.join(', ')}; known: ${PROVIDER_MODE_NAMES.join(', ')}\n`);
  process.exit(2);
}
const emulator = await startProviderEmulator({
  modes,
  script: values.script ? parseScriptJson(readFileSync(values.script, 'utf8')) : [],
  port: values.port ? Number(values.port) : 0,
  ...(values.model ? { models: values.model } : {}),
  ...(values['api-key-file'] ? { apiKey: readFileSync(values['api-key-file'], 'utf8').trim() } : {}),
});
process.stdout.write(`${JSON.stringify({ url: emulator.url, port: emulator.port, modes })}\n`);
const stop = () => void emulator.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
