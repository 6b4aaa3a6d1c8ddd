/**
 * The commands that act on a running or finished workflow by id: `cancel` and `status`, each of which can wait for
 * the workflow to close (a run started elsewhere: by a schedule, another service, `--no-wait`) and exit as the
 * command that started it would have.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { AWAITING_APPROVAL, ownName, progressQuery, type DataQualityPipelineResult } from '../../contract/index.js';
import { type RootCause, describeRoot, rootCause } from '../failure.js';
import { follow } from '../follow.js';
import {
  EXIT,
  type GateLimits,
  failureExit,
  formatDecisionAsked,
  formatOrder,
  formatPipeline,
  formatPreview,
  formatProfile,
  formatPromotion,
  formatTestRun,
  jobPages,
  orderExit,
  pipelineExit,
  promotionExit,
  table,
} from '../format.js';
import { QUERY_WAIT_MS, askPreview, askWorker, resultOrNoWorker } from '../query.js';
import { retrying, retryingText, startInput } from '../retrying.js';
import { NotFound, type CommandContext, type Starter } from '../runner.js';

/** How each workflow's result reads; others print as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const FORMATS: Record<string, (r: any, gates?: GateLimits) => string> = {
  dataQualityPipeline: formatPipeline,
  profileTableGroup: formatProfile,
  runTestSuite: formatTestRun,
  runOrder: formatOrder,
  promoteTestDefinitions: formatPromotion,
};

/** A workflow's outcome from the read of its result: the result, or the failure at the root of its chain. */
async function outcome(result: Promise<unknown>): Promise<{ result: unknown } | { failure: RootCause }> {
  try {
    return { result: await result };
  } catch (err) {
    if (err instanceof WorkflowFailedError) return { failure: rootCause(err) };
    throw err;
  }
}

/** A closed workflow's exit code, as the command that started it would have exited; others 0. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const RESULT_EXITS: Record<string, (r: any) => number> = {
  dataQualityPipeline: pipelineExit,
  promoteTestDefinitions: promotionExit,
  runOrder: orderExit,
};

type PipelineIn = { gates?: GateLimits } | undefined;

type PipelineOut = Partial<DataQualityPipelineResult> | undefined;

export function registerAdminCommands(program: Command, { starter: s, action }: CommandContext): void {
  program
    .command('cancel <workflowId>')
    .description('cancel a workflow (its remote job is cancelled too)')
    .option('--wait', 'wait until it has closed, show how it ended (the remote cancel included), exit as it ended')
    .action(
      action(async (workflowId: string, f: { wait?: boolean }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        // The server accepts a cancel of a closed workflow and does nothing: say so instead of "cancel requested".
        const { status } = await handle.describe();
        if (status.name !== 'RUNNING') throw NotFound.closed(workflowId, status.name, 'nothing was cancelled');
        await handle.cancel();
        s().print(`cancel requested: ${workflowId}`);
        // A cancel is a request: the job may end first, or its cancel go unconfirmed. How it ended is what counts.
        if (f.wait) s().exitCode = await show(s(), handle, { wait: true });
      }),
    );

  program
    .command('status <workflowId>')
    .description('show a workflow: status, stage, jobs, and its result when closed')
    .option('--json', 'print as JSON')
    .option('--wait', 'wait until it has closed, then show it and exit as the command that started it would')
    .option('--follow', 'show live progress while it runs (implies --wait)')
    .action(
      action(async (workflowId: string, f: StatusFlags) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        s().exitCode = await show(s(), handle, f);
      }),
    );
}

interface StatusFlags {
  json?: boolean;
  wait?: boolean;
  follow?: boolean;
}

/**
 * Shows a workflow (waiting for it to close first if asked) and returns the exit code: a closed workflow's as the
 * command that started it would have exited (1 failed, 3 gates failed, 4 cancelled, 5 not applied) when it was
 * waited for, else 0 (a status shown is a success whatever it shows).
 */
async function show(s: Starter, handle: WorkflowHandle, f: StatusFlags): Promise<number> {
  const workflowId = handle.workflowId;
  // With --json, the live lines go to stderr: stdout stays one JSON document.
  if (f.follow)
    await s.interruptible(handle, () => follow(handle, f.json ? s.io.err : s.io.out, undefined, s.config.deployments));
  // Waited for, its outcome is read once, here; else only once it is seen closed.
  // Waiting, it says when no worker has taken the run up; a closed run's result is read at once.
  const waited =
    f.wait && !f.follow ? await s.interruptible(handle, () => outcome(resultOrNoWorker(handle, s.io.err))) : null;
  const d = await handle.describe();
  const progress = await askWorker(handle, () => handle.query(progressQuery)).catch(() => null);
  const closed = d.status.name !== 'RUNNING' && d.status.name !== 'UNSPECIFIED';
  const end = closed ? (waited ?? (await outcome(handle.result()))) : null;
  const retry = closed ? null : retryingText(await retrying(handle, d, progress?.stage, s.config.deployments));
  // By its own name: `dataops.` and the name, or the name alone (a 0.x run still draining).
  const kind = ownName(d.type);
  // A running promotion's preview: what its approver must name, whoever started it (a schedule, another service,
  // `--no-wait`, a `promote` that gave up waiting or was interrupted). A closed one's is in its result.
  const promotion = kind === 'promoteTestDefinitions';
  const preview = promotion && progress && !closed ? await askPreview(handle) : null;
  const exit = f.wait || f.follow ? exitOf(kind, end) : EXIT.ok;
  if (f.json) {
    s.print(
      JSON.stringify(
        {
          workflowId,
          type: d.type,
          status: d.status.name,
          progress,
          retrying: retry,
          ...(promotion ? { preview } : {}),
          memo: d.memo ?? null,
          ...end,
        },
        null,
        2,
      ),
    );
    return exit;
  }
  s.print(
    table([
      ['workflow', `${d.type} ${workflowId}`],
      ['status', d.status.name],
      ...(progress
        ? []
        : [
            [
              'progress',
              `no worker answered within ${QUERY_WAIT_MS / 1000} s (is one polling task queue ${d.taskQueue}?)`,
            ] as [string, unknown],
          ]),
      ['stage', progress?.stage],
      ['jobs', progress?.jobs.map((j) => `${j.role} ${j.jobId} ${j.status ?? ''}`).join('; ') || null],
      // Each job's page in the service's UI: from the progress, or from the memo when no worker answers.
      ['job pages', jobPages(progress?.jobs, d.memo)],
      [
        'remote cancel',
        progress?.remoteCancel ? `${progress.remoteCancel.jobId} ${progress.remoteCancel.finalStatus}` : null,
      ],
      [
        'stuck',
        progress?.stuck
          ? `${progress.stuck.jobId} ${progress.stuck.status} for ${Math.round(progress.stuck.forMs / 1000)} s`
          : null,
      ],
      ['retrying', retry],
      ['error', progress?.error],
      ['failure', end && 'failure' in end ? describeRoot(end.failure) : null],
      ['web UI', s.link(workflowId)],
    ]),
  );
  if (preview)
    s.print(progress?.stage === AWAITING_APPROVAL ? formatDecisionAsked(workflowId, preview) : formatPreview(preview));
  if (end && 'result' in end) {
    const format = FORMATS[kind];
    // A pipeline's result names its gates' limits; one from before contract 0.3 does not: its input does.
    const oldVerdict = kind === 'dataQualityPipeline' && !(end.result as PipelineOut)?.gates?.limits;
    const gates = oldVerdict ? ((await startInput(handle)) as PipelineIn)?.gates : undefined;
    s.print(`result:\n${format ? format(end.result, gates) : JSON.stringify(end.result, null, 2)}`);
  }
  return exit;
}

/** The exit code of a closed workflow's outcome (`null`: still running). */
function exitOf(kind: string, end: Awaited<ReturnType<typeof outcome>> | null): number {
  if (!end) return EXIT.ok;
  if ('failure' in end) return failureExit(end.failure);
  return RESULT_EXITS[kind]?.(end.result) ?? EXIT.ok;
}
