#!/usr/bin/env node
// Bundles the workflow code ahead of time (Temporal's recommendation for production): dist/workflow-bundle.js.
// The worker uses it when present; without it, the worker bundles at start (the development path).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../dist/src/workflows/index.js', import.meta.url));
const out = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
const logger = new DefaultLogger('WARN');
const { code } = await bundleWorkflowCode({ workflowsPath, logger });
writeFileSync(out, code);
console.log(`workflow bundle: ${out} (${(code.length / 1024 / 1024).toFixed(2)} MiB)`);

// The same workflows with the OpenTelemetry interceptors, which the worker uses when tracing is on.
const otel = fileURLToPath(new URL('../dist/workflow-bundle-otel.js', import.meta.url));
const interceptors = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);
const traced = await bundleWorkflowCode({ workflowsPath, logger, workflowInterceptorModules: [interceptors] });
writeFileSync(otel, traced.code);
console.log(`workflow bundle with tracing: ${otel} (${(traced.code.length / 1024 / 1024).toFixed(2)} MiB)`);
