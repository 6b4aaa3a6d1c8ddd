/** The worker's configuration as it logs it at start-up: every setting that matters, with secrets replaced. */
import { describeLineage } from './lineage.js';
import type { WorkerConfig } from './worker.js';

/** The configuration with secrets replaced, for logging at start-up. */
export function describeConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    temporal: {
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      waitsTaskQueue: config.waitsTaskQueue,
      tls: Boolean(config.temporal.tls),
      apiKey: config.temporal.apiKey ? '(set)' : '(none)',
    },
    service: {
      baseUrl: config.service.baseUrl,
      apiBaseUrl: config.service.apiBaseUrl ?? config.service.baseUrl,
      scoreScale: config.service.scoreScale,
      profiles: Object.fromEntries(
        Object.entries(config.service.profiles).map(([n, p]) => [
          n,
          {
            username: p.credentials?.username ?? null,
            apiBearer: p.apiBearer?.type ?? 'session',
            projectCode: p.projectCode ?? null,
            soleWriter: p.soleWriter ?? false,
          },
        ]),
      ),
    },
    blobDir: config.blobDir,
    blobStore: config.objectStore
      ? `s3://${config.objectStore.bucket}/${config.objectStore.prefix}` +
        (config.objectStore.endpoint ? ` at ${config.objectStore.endpoint}` : '')
      : 'local',
    blobRetentionDays: config.blobRetentionDays ?? 'forever',
    exportDir: config.exportDir,
    searchAttributes: config.searchAttributes,
    tracing: config.tracing ?? 'off',
    lineage: describeLineage(config.lineage),
    jobLinks: Object.keys(config.jobLinks).length ? config.jobLinks : 'none',
    deployment: config.deployment ?? 'unversioned',
    metrics: config.prometheusAddress ?? 'off',
    capacity: config.capacity,
  };
}
