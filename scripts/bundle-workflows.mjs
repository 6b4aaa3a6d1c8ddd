#!/usr/bin/env node
// Bundles the workflow code ahead of time (Temporal's recommendation for production): dist/workflow-bundle.js.
// The worker uses it when present; without it, the worker bundles at start (the development path).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../dist/src/workflows/index.js', import.meta.url));
const out = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
writeFileSync(out, code);
console.log(`workflow bundle: ${out} (${(code.length / 1024 / 1024).toFixed(2)} MiB)`);
