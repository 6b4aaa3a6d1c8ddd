/**
 * The worker's lineage emitter, from its configuration: none when DATAOPS_LINEAGE is off. Each event sent or dropped
 * is counted (`dataops_lineage_events`, by outcome), and a drop is logged as a warning with its reason.
 */
import { createRequire } from 'node:module';
import type { MetricMeter } from '@temporalio/common';
import type { LineageDeps } from '../activities/lineage.js';
import type { LineageConfig } from '../config/lineage.js';
import { Datasources } from '../lineage/datasources.js';
import { LineageEmitter } from '../lineage/emitter.js';

type Log = (message: string, meta: Record<string, unknown>) => void;

/** The package's version (dist/src/setup/ is three levels below its package.json): the events' producer. */
export const PRODUCER_VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string })
  .version;

export function openLineage(config: LineageConfig, meter: MetricMeter, warn: Log, info: Log): LineageDeps | undefined {
  if (config.transport.type === 'off') return undefined;
  const events = meter.createCounter('dataops_lineage_events', 'events', 'OpenLineage events, sent or dropped');
  const emitter = new LineageEmitter({
    transport: config.transport,
    onOutcome: (outcome, reason) => {
      events.add(1, { outcome });
      if (outcome === 'dropped') warn('lineage event dropped', { reason });
    },
  });
  const settings = {
    namespace: config.namespace,
    ...(config.datasetNamespace ? { datasetNamespace: config.datasetNamespace } : {}),
    producerVersion: PRODUCER_VERSION,
    serviceLanguage: config.serviceLanguage,
  };
  return { emitter, settings, datasources: new Datasources(config.connections), log: info };
}
