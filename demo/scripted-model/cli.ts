/**
 * Run the scripted model as its own process:
 *   tsx demo/scripted-model/cli.ts --script script.json [--port 0]
 * Prints one JSON line `{"url": "...", "port": N}` on stdout once listening; SIGTERM/SIGINT close it.
 * The script file is re-read on SIGHUP.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseScriptJson } from './script.js';
import { startScriptedModel } from './server.js';

const { values } = parseArgs({ options: { script: { type: 'string' }, port: { type: 'string' } } });
const load = () => (values.script ? parseScriptJson(readFileSync(values.script, 'utf8')) : []);
const model = await startScriptedModel({ script: load(), port: values.port ? Number(values.port) : 0 });
process.stdout.write(`${JSON.stringify({ url: model.url, port: model.port })}\n`);
process.on('SIGHUP', () => model.setScript(load()));
const stop = () => void model.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
