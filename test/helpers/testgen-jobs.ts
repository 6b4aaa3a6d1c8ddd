/**
 * A TestGen peer's jobs as a test watches them: every job of the demo project with its kind and status, a wait for a
 * new job to reach a status, and the demo pipeline started on a task queue.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ServiceClient } from '../../src/api/index.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import type { TestGenPeer } from './testgen.js';

const JOB_KEYS = ['run-profile', 'run-tests', 'run-test-generation'] as const;

export interface PeerJob {
  id: string;
  key: string;
  status: string;
}

/** Every job of the demo project (the newest 50 of each kind), with its kind and its status as TestGen says now. */
export async function demoJobs(client: ServiceClient, peer: TestGenPeer): Promise<PeerJob[]> {
  const all: PeerJob[] = [];
  for (const job_key of JOB_KEYS)
    for (const j of (await client.jobs.list(peer.demo.projectCode, { job_key, limit: 50 })).items)
      all.push({ id: j.id, key: job_key, status: (await client.jobs.get(j.id)).status });
  return all;
}

/** Waits until TestGen shows a job of `key` that is not in `earlier` in `status` (polled every 20 ms or so). */
export async function untilJob(
  client: ServiceClient,
  peer: TestGenPeer,
  earlier: ReadonlySet<string>,
  key: string,
  status: string,
): Promise<void> {
  const seen = async () =>
    (await demoJobs(client, peer)).some((j) => !earlier.has(j.id) && j.key === key && j.status === status);
  for (let tries = 0; !(await seen()); tries++) {
    assert.ok(tries < 1_000, `TestGen never showed the ${key} job ${status}`);
    await sleep(20);
  }
}

/** Starts the pipeline on the demo table group and suite (no test generation, gates reported), polling every 0.5–1 s. */
export async function startDemoPipeline(
  temporal: Client,
  peer: TestGenPeer,
  taskQueue: string,
  workflowId: string,
  input: Record<string, unknown> = {},
): Promise<WorkflowHandle<() => Promise<DataQualityPipelineResult>>> {
  return (await temporal.workflow.start('dataops.dataQualityPipeline', {
    taskQueue,
    workflowId,
    args: [
      {
        pollIntervalMs: 500,
        maxPollIntervalMs: 1_000,
        tableGroupId: peer.demo.tableGroupId,
        testSuiteId: peer.demo.testSuiteId,
        testGeneration: 'skip',
        onGateFailure: 'report',
        ...input,
      },
    ],
  })) as WorkflowHandle<() => Promise<DataQualityPipelineResult>>;
}
