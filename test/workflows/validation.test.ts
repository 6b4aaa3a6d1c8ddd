import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { createActivities } from '../../src/activities/index.js';
import { workflowsPath } from '../helpers/activities.js';
import { startTimeSkippingEnv, withWorker, type TestEnv } from '../helpers/temporal.js';

// Each bad input and the problems it must report, by path. Nothing reaches the service: the worker has no profiles.
const CASES: [string, unknown, string[]][] = [
  [
    'runOrder',
    { kitchen: '', recipe: 5, parameters: [], overrides: { infrastructure: { a: 1 }, sideways: {} } },
    ['kitchen', 'recipe', 'variation', 'parameters', 'overrides'],
  ],
  [
    'runOrder',
    {
      kitchen: 'k',
      recipe: 'r',
      variation: 'v',
      parameters: { image_tag: 'x' },
      overrides: { infrastructure: { image_tag: 'y' } },
    },
    ['overrides.infrastructure.image_tag'],
  ],
  [
    'profileTableGroup',
    { tableGroupId: '', pollIntervalMs: 5, waitStrategy: 'sometimes', surprise: true },
    ['tableGroupId', 'waitStrategy', 'pollIntervalMs', '(input)'],
  ],
  ['profileTableGroup', { tableGroupId: 'x', pollIntervalMs: 60_000, maxPollIntervalMs: 1_000 }, ['maxPollIntervalMs']],
  ['runTestSuite', {}, ['testSuiteId']],
  ['runTestSuite', undefined, ['testSuiteId']],
  [
    'dataQualityPipeline',
    {
      tableGroupId: 'tg',
      gates: { minScorePercent: 101, maxFailed: -1 },
      onGateFailure: 'shrug',
      order: { kitchen: 'k' },
    },
    ['order.recipe', 'order.variation', 'testSuiteId', 'gates.minScorePercent', 'gates.maxFailed', 'onGateFailure'],
  ],
  [
    'promoteTestDefinitions',
    {
      source: { testSuiteId: '' },
      targetTestSuiteId: 'x',
      preset: 'upsert',
      policy: { on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
      mode: 'preview',
    },
    // cross-field checks (exactly one of preset or policy) are reported once every field parses: see the next case
    ['source.testSuiteId', 'mode'],
  ],
  [
    'promoteTestDefinitions',
    { source: { testSuiteId: 's' }, targetTestSuiteId: 't', approval: { timeoutMs: 5 } },
    ['preset', 'approval.timeoutMs'],
  ],
  [
    'promoteTestDefinitions',
    // A stored file's reference: a negative size or a malformed hash is refused before any store is read.
    { source: { file: { ref: 'local:x', sha256: 'abc', bytes: -1 } }, targetTestSuiteId: 't', preset: 'upsert' },
    ['source.file.sha256', 'source.file.bytes'],
  ],
  [
    'exportTestDefinitions',
    { testSuiteId: 's', filters: { origin: 'sometimes' }, destination: '/etc/x.json' },
    ['filters.origin', 'destination'],
  ],
];

describe('every workflow rejects a bad input with the full list of problems', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());

  for (const [workflow, input, paths] of CASES) {
    test(`${workflow} ${JSON.stringify(input)?.slice(0, 60) ?? 'undefined'}`, async () => {
      const err = await withWorker(
        t.env,
        { workflowsPath, activities: createActivities({ profiles: {} }) },
        (taskQueue) =>
          t.env.client.workflow.execute(`dataops.${workflow}`, {
            taskQueue,
            workflowId: `bad-${taskQueue}`,
            args: input === undefined ? [] : [input],
          }),
      ).catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError, `expected a failed workflow, got ${String(err)}`);
      assert.ok(err.cause instanceof ApplicationFailure);
      assert.equal(err.cause.type, 'InvalidInput');
      assert.equal(err.cause.nonRetryable, true);
      const problems = (err.cause.details?.[0] as { problems: string[] }).problems;
      const reported = problems.map((p) => p.slice(0, p.indexOf(':')));
      for (const path of paths) assert.ok(reported.includes(path), `${path} missing from ${JSON.stringify(problems)}`);
      assert.match(err.cause.message, new RegExp(`^invalid input of ${workflow}: `));
    });
  }
});

describe('a workflow given more than its one input is refused, not run on the first', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());

  test('runTestSuite with a second argument fails InvalidInput, naming the count', async () => {
    const err = await withWorker(
      t.env,
      { workflowsPath, activities: createActivities({ profiles: {} }) },
      (taskQueue) =>
        t.env.client.workflow.execute('dataops.runTestSuite', {
          taskQueue,
          workflowId: `two-args-${taskQueue}`,
          args: [{ testSuiteId: 's' }, { pollIntervalMs: 100 }],
        }),
    ).catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError, `expected a failed workflow, got ${String(err)}`);
    assert.ok(err.cause instanceof ApplicationFailure);
    assert.equal(err.cause.type, 'InvalidInput');
    assert.equal(
      err.cause.message,
      'invalid input of runTestSuite: (arguments): runTestSuite takes one argument, its input object; it was given 2',
    );
  });
});

describe("a promotion whose approval could outlast the worker's claim-check retention is refused at once", () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());
  const DAY = 24 * 3_600_000;
  const promotion = (approval: { required?: boolean; timeoutMs?: number }) => ({
    source: { testSuiteId: 's' },
    targetTestSuiteId: 't',
    preset: 'promotion',
    approval,
  });
  const run = (input: unknown) =>
    withWorker(
      t.env,
      { workflowsPath, activities: createActivities({ profiles: {}, claimCheckRetentionMs: 7 * DAY }) },
      (taskQueue) =>
        t.env.client.workflow.execute('dataops.promoteTestDefinitions', {
          taskQueue,
          workflowId: `retention-${taskQueue}`,
          args: [input],
        }),
    ).catch((e: unknown) => e);

  test('seven days of retention: an approval wait of seven days is refused, naming the field and the setting', async () => {
    const err = await run(promotion({ timeoutMs: 7 * DAY }));
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure, String(err));
    assert.equal(err.cause.type, 'InvalidInput');
    assert.equal(err.cause.nonRetryable, true);
    assert.match(err.cause.message, /approval\.timeoutMs: .*retention of 7 days \(DATAOPS_BLOB_RETENTION_DAYS\)/);
  });

  test('a wait that fits, or no approval at all, passes the check (and goes on to the export)', async () => {
    for (const approval of [{ timeoutMs: 5 * DAY }, { required: false, timeoutMs: 30 * DAY }]) {
      const err = await run(promotion(approval));
      assert.ok(err instanceof WorkflowFailedError, String(err));
      // The worker has no credential profiles: the export is what fails, after the input was accepted.
      const root = err.cause?.cause ?? err.cause;
      assert.ok(root instanceof ApplicationFailure, (root as Error | undefined)?.message);
      assert.equal(root.type, 'UnknownProfile', root.message);
    }
  });
});
