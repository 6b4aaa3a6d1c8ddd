/**
 * The worker of the scale benchmark's bound (bound-workflow.ts), as a process of its own so that its CPU is read
 * apart: `node dist/bench/scale/bound-worker.js <temporal address> <task queue> <cached workflows> <service url>`.
 * Its one activity makes the plain loop's calls (loop.ts) with the loop's client, heartbeats while it polls (throttled
 * as the project's worker is by default, DEFAULT_HEARTBEAT_THROTTLE_MS), and takes `locks` of its two submissions'
 * locks (the profiling run's first) the way the project's do: a delayed execution started with
 * `workflowIdConflictPolicy: FAIL`, a describe of its own workflow after the send, and a terminate that records the job.
 * Shape 6 adds our worker's own input check, as a local activity; in shape 7 the activity runs once per job (`part`).
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context, heartbeat } from '@temporalio/activity';
import { ServiceClient } from '../../src/api/index.js';
import { inputActivities } from '../../src/activities/inputs.js';
import { DEFAULT_HEARTBEAT_THROTTLE_MS } from '../../src/config/worker.js';
import { SEED_USERS } from '../../src/simulator/index.js';
import { isTerminalJobStatus } from '../../src/vocabulary.js';
import { namedSignal, type BoundArgs } from './bound-workflow.js';
import { sendingSignal, submitSignal, type SubmitRequest } from './bound-submitter.js';
import { runBenchWorker } from './bench-worker.js';
import { pipelineInput } from './pipelines.js';

const [address, taskQueue, cache, serviceUrl] = process.argv.slice(2);
if (!address || !taskQueue || !Number.isInteger(Number(cache)) || !serviceUrl)
  throw new Error('usage: bound-worker.js <temporal address> <task queue> <cached workflows> <service url>');
const service = new ServiceClient({ baseUrl: serviceUrl, credentials: { ...SEED_USERS.admin } });
await service.login();

/** Sends under a lock execution named for the target (when asked), as the project's submissions do. */
async function locked(locks: boolean, target: string, send: () => Promise<{ id: string }>) {
  if (!locks) return await send();
  const { client, info } = Context.current();
  const { workflowId, runId } = info.workflowExecution!;
  const lock = await client.workflow.start('boundLock', {
    taskQueue: `${taskQueue}-locks`,
    workflowId: `bound-lock/${target}`,
    startDelay: '30 minutes',
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    memo: { owner: { workflowId, runId, activityId: info.activityId } },
  });
  const job = await send();
  await client.workflow.getHandle(workflowId, runId).describe();
  // By its run, as target-lock.ts releases: by id alone, the server would read the current run first.
  await client.workflow.getHandle(lock.workflowId, lock.firstExecutionRunId).terminate(`released: ${job.id}`);
  return job;
}

async function untilTerminal(jobId: string, pollMs: number): Promise<void> {
  for (let polls = 1; ; polls++) {
    const job = await service.jobs.get(jobId);
    if (isTerminalJobStatus(job.status)) return;
    heartbeat({ jobId, polls });
    await sleep(pollMs);
  }
}

async function boundSteps(args: BoundArgs): Promise<string> {
  const { testSuiteId, pollMs, locks, testRunJobId, part, request } = args;
  if (part !== 'tests') await profilingSteps(args);
  if (part === 'profiling') {
    // Shape 7: the test run goes through its suite's submitter, asked as the profiling run's wait ends.
    if (request) await requestSubmission(request);
    return 'profiled';
  }
  const tests = testRunJobId
    ? { id: testRunJobId }
    : await locked(locks === 2, testSuiteId, () => service.testRuns.submit(testSuiteId));
  if (locks === 5 || locks === 6) {
    const { workflowId, runId } = Context.current().info.workflowExecution!;
    await Context.current().client.workflow.getHandle(workflowId, runId).signal(namedSignal, { jobId: tests.id });
  }
  heartbeat({ jobId: tests.id });
  await untilTerminal(tests.id, pollMs);
  const summary = await service.testRuns.summary(tests.id);
  return summary.status;
}

/** The profiling run's part of the steps: submitted here or by its submitter, waited for, its results read. */
async function profilingSteps({ tableGroupId, pollMs, locks, profilingJobId }: BoundArgs): Promise<void> {
  const profiling = profilingJobId
    ? { id: profilingJobId }
    : await locked(locks === 1 || locks === 2, tableGroupId, () => service.profilingRuns.submit(tableGroupId));
  heartbeat({ jobId: profiling.id });
  await untilTerminal(profiling.id, pollMs);
  await service.profilingRuns.summary(profiling.id);
  await service.tableGroups.get(tableGroupId);
}

const { checkWorkflowInput } = inputActivities({ searchAttributes: true, lineage: false });

/**
 * Shape 6's input check (a local activity): our worker's own check, on the input the benchmark gives our pipelines
 * (pipelines.ts), so that it costs what ours costs; a refusal fails the pipeline as ours would.
 */
async function boundInputCheck(args: BoundArgs): Promise<BoundArgs> {
  const { tableGroupId, testSuiteId, pollMs } = args;
  const input = pipelineInput({ tableGroupId, testSuiteId }, { pollIntervalMs: pollMs });
  await checkWorkflowInput({ workflow: 'dataQualityPipeline', input });
  return args;
}

/** Asks the target's submitter (bound-submitter.ts) to submit, starting it when it is not running. */
async function requestSubmission(r: SubmitRequest): Promise<void> {
  await Context.current().client.workflow.signalWithStart('boundSubmitter', {
    taskQueue: String(taskQueue),
    workflowId: `bound-submitter/${r.target}`,
    args: [[]],
    signal: submitSignal,
    signalArgs: [r],
  });
}

/**
 * The submitter's batch: `count` jobs of `kind` on `target` (profiling runs of a table group, test runs of a suite),
 * one after the other; `recorded`: each recorded at the submitter (a signal, awaited) before it leaves.
 */
async function submitBatch(
  target: string,
  count: number,
  recorded = false,
  kind: SubmitRequest['kind'] = 'profiling',
): Promise<string[]> {
  const { client, info } = Context.current();
  const { workflowId, runId } = info.workflowExecution!;
  const submitter = recorded ? client.workflow.getHandle(workflowId, runId) : undefined;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    await submitter?.signal(sendingSignal, { index: i, at: Date.now() });
    const job = kind === 'tests' ? service.testRuns.submit(target) : service.profilingRuns.submit(target);
    ids.push((await job).id);
    heartbeat({ ids });
  }
  return ids;
}

try {
  await runBenchWorker('bound', address, {
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./bound-workflow.js', import.meta.url)),
    activities: { boundSteps, requestSubmission, submitBatch, boundInputCheck },
    maxCachedWorkflows: Number(cache),
    maxHeartbeatThrottleInterval: DEFAULT_HEARTBEAT_THROTTLE_MS,
    defaultHeartbeatThrottleInterval: DEFAULT_HEARTBEAT_THROTTLE_MS,
  });
} finally {
  service.close();
}
