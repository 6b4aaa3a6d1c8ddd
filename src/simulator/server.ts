#!/usr/bin/env node
/**
 * The simulator as its own process: the package's `dataops-simulator` command (`npm run simulator --` in this
 * repository) `[--port 8700] [--host 127.0.0.1] [--seed file.json] [--state-file sim-state.json] [--controls]
 * [--print-seed]`. Logs one line per request.
 */
import { parseArgs } from 'node:util';
import { loadSimulatorConfig } from '../config/simulator.js';
import { startSimulator } from './app.js';
import { defaultSeed } from './default-seed.js';
import { loadSeedFile } from './seed.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      'state-file': { type: 'string' },
      controls: { type: 'boolean' },
      variants: { type: 'string' },
      'print-seed': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(
      'usage: dataops-simulator [--port N] [--host H] [--seed FILE] [--state-file FILE] [--controls] ' +
        '[--variants JSON] [--print-seed]   (in this repository: npm run simulator -- …)',
    );
    return;
  }
  if (values['print-seed']) {
    console.log(JSON.stringify(defaultSeed, null, 2));
    return;
  }
  const config = loadSimulatorConfig({
    port: values.port,
    host: values.host,
    seedFile: values.seed,
    stateFile: values['state-file'],
    controls: values.controls,
    variants: values.variants,
  });
  const sim = await startSimulator({
    port: config.port,
    host: config.host,
    controls: config.controls,
    stateFile: config.stateFile,
    variants: config.variants,
    seed: config.seedFile ? loadSeedFile(config.seedFile) : undefined,
    log: (line) => console.log(`${new Date().toISOString()} ${line}`),
  });
  console.log(`simulator listening on ${sim.url}${config.controls ? ' (controls on /_sim/)' : ''}`);
  const stop = (signal: string) => {
    console.log(`simulator stopping (${signal})`);
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
