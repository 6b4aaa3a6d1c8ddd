/**
 * What a cluster needs before other namespaces can call the `dataops` Nexus service: the caller's namespace (on a
 * dev server) and an endpoint that routes to the worker's namespace and task queue. Idempotent: an endpoint that
 * already routes where asked is kept; one that routes elsewhere is an error naming both targets.
 */
import type { ConnectionLike } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';

export interface NexusEndpointSpec {
  /** Endpoint name: letters, digits and inner hyphens (the server's rule); callers name it in their workflow code. */
  name: string;
  /** Namespace and task queue of the worker that serves the `dataops` service. */
  targetNamespace: string;
  targetTaskQueue: string;
  description?: string;
}

/** gRPC status codes (as the client's errors carry them). */
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;
const isCode = (err: unknown, code: number) => (err as { code?: number }).code === code;

/** Registers a namespace unless it exists (1 day retention: for dev servers and tests). Returns whether it created it. */
export async function ensureNamespace(
  connection: ConnectionLike,
  namespace: string,
  retentionDays = 1,
): Promise<boolean> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return false;
  } catch (err) {
    if (!isCode(err, NOT_FOUND)) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000),
    });
  } catch (err) {
    if (!isCode(err, ALREADY_EXISTS)) throw err;
  }
  return true;
}

/** Creates the endpoint unless one of that name already routes to the same target. Returns whether it created it. */
export async function ensureNexusEndpoint(connection: ConnectionLike, spec: NexusEndpointSpec): Promise<boolean> {
  if (!/^[a-zA-Z][a-zA-Z0-9-]*[a-zA-Z0-9]$/.test(spec.name))
    throw new Error(
      `Nexus endpoint name '${spec.name}' must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens`,
    );
  const listed = await connection.operatorService.listNexusEndpoints({ name: spec.name, pageSize: 1 });
  const existing = listed.endpoints?.[0];
  if (existing) {
    const worker = existing.spec?.target?.worker;
    if (worker?.namespace === spec.targetNamespace && worker.taskQueue === spec.targetTaskQueue) return false;
    throw new Error(
      `Nexus endpoint '${spec.name}' exists and routes to ${worker ? `${worker.namespace}/${worker.taskQueue}` : 'an external target'}, ` +
        `not ${spec.targetNamespace}/${spec.targetTaskQueue}; delete it or choose another name`,
    );
  }
  await connection.operatorService.createNexusEndpoint({
    spec: {
      name: spec.name,
      target: { worker: { namespace: spec.targetNamespace, taskQueue: spec.targetTaskQueue } },
      ...(spec.description
        ? {
            description: {
              data: Buffer.from(JSON.stringify(spec.description)),
              metadata: { encoding: Buffer.from('json/plain') },
            },
          }
        : {}),
    },
  });
  return true;
}
