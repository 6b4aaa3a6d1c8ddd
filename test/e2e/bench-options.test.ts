/** The scale benchmark's options: defaults, and a wrong one named before anything starts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { msToTs } from '@temporalio/common/lib/time.js';
import { benchOptions, workerEnvOf } from '../../bench/scale/options.js';
import { DEFAULT_HEARTBEAT_THROTTLE_MS } from '../../src/config/worker.js';
import { waitsCompleted } from '../../bench/scale/pipelines.js';
import { cpuPerPipeline } from '../../bench/scale/measure.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  counters,
  delta,
  perPipeline,
  persistenceLoad,
  scrape,
  settledScrape,
} from '../../bench/scale/server-metrics.js';
import { actionsLine, costRow, totalActions } from '../../bench/scale/actions.js';
import { countRetries, retryLine } from '../../bench/scale/retries.js';

test('bench:scale options: the defaults, and the pairs and JSON it takes', () => {
  const o = benchOptions([]);
  assert.deepEqual(o.sizes, [10, 100, 1000]);
  assert.equal(o.spreadMs, 0);
  assert.equal(o.floor, true);
  assert.deepEqual(o.bound, [], 'the bound runs only when asked');
  assert.deepEqual(benchOptions(['--bound', '0,1,2']).bound, [0, 1, 2]);
  assert.deepEqual(benchOptions(['--bound', '2']).bound, [2]);
  assert.deepEqual(benchOptions(['--bound', '3']).bound, [3], 'the submitter shape');
  assert.deepEqual(benchOptions(['--bound', '3,4']).bound, [3, 4], 'the submitter recording each send');
  assert.deepEqual(benchOptions(['--bound', '4,5']).bound, [4, 5], 'and each job named to its workflow');
  assert.deepEqual(benchOptions(['--bound', '5,6']).bound, [5, 6], 'and our input check and progress upserts');
  assert.deepEqual(benchOptions(['--bound', '6,7']).bound, [6, 7], 'and on one path: the test run serialised too');
  assert.equal(o.sameTarget, false);
  assert.equal(benchOptions(['--same-target']).sameTarget, true);
  const given = benchOptions([
    ...['--run-spread-ms', '5000', '--no-floor', '--input', '{"statusReports":0}'],
    ...['--worker-env', 'A=1,B=x=y', '--server-config', 'system.enableActivityEagerExecution=true'],
  ]);
  assert.equal(given.spreadMs, 5000);
  assert.equal(given.floor, false);
  assert.deepEqual(given.extraInput, { statusReports: 0 });
  assert.deepEqual(given.extraEnv, { A: '1', B: 'x=y' });
  assert.deepEqual(given.serverConfig, { 'system.enableActivityEagerExecution': 'true' });
});

test('bench:scale options: a wrong one is named', () => {
  assert.throws(() => benchOptions(['--input', '{x']), /--input is not JSON/);
  assert.throws(() => benchOptions(['--input', '[1]']), /--input takes a JSON object/);
  assert.throws(() => benchOptions(['--server-config', 'nokey']), /--server-config takes K=V pairs.*"nokey"/);
  assert.throws(() => benchOptions(['--run-spread-ms', '1.5']), /--run-spread-ms and --rounds take whole numbers/);
  assert.throws(
    () => benchOptions(['--n', '10,0']),
    /--n \(each size\), --poll-ms and --rounds take whole numbers from 1/,
  );
  assert.throws(() => benchOptions(['--rounds', '0']), /--rounds take whole numbers from 1/);
  assert.throws(() => benchOptions(['--bogus']), /bogus/);
  assert.throws(
    () => benchOptions(['--bound', 'yes']),
    /--bound takes shapes \(0, 1 or 2 locks; 3: a submitter; 4: a submitter recording each send; 5: and each job named to its workflow; 6: and our input check and progress upserts; 7: one path, the test run through its submitter too\) .*not "yes"/,
  );
  assert.throws(() => benchOptions(['--bound', '0,8']), /--bound takes shapes/);
  assert.throws(() => benchOptions(['--bound', '0,']), /--bound takes shapes/, 'an empty count is not 0');
  assert.throws(
    () => benchOptions(['--same-target', '--fresh-targets']),
    /--same-target and --fresh-targets contradict/,
  );
});

test('bench:scale lags: every wait for a job counts, and nothing else', () => {
  const scheduled = (eventId: number, name: string) => ({
    eventId,
    activityTaskScheduledEventAttributes: { activityType: { name } },
  });
  const completed = (scheduledEventId: number, s: number) => ({
    eventTime: msToTs(s * 1_000),
    activityTaskCompletedEventAttributes: { scheduledEventId },
  });
  const events = [
    scheduled(5, 'dataops.waitForJob'),
    scheduled(6, 'dataops.getProfilingSummary'),
    completed(6, 9),
    completed(5, 10),
    scheduled(11, 'dataops.waitForJob'),
    completed(11, 20),
  ];
  assert.deepEqual(waitsCompleted(events as never), [10_000, 20_000]);
});

test('bench:scale server metrics: persistence time is summed over every namespace, and read in exponent form', () => {
  const exposition = [
    'persistence_latency_sum{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} 3.5',
    'persistence_latency_count{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} 1000',
    'persistence_latency_sum{namespace="_unknown_",operation="GetNamespace",service_name="worker"} 2.5e-01',
    'persistence_latency_count{namespace="_unknown_",operation="GetNamespace",service_name="worker"} 500',
    'persistence_requests{namespace="_unknown_",operation="GetNamespace",service_name="worker"} 500',
    'persistence_requests{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} 1000',
    'service_requests{operation="StartWorkflowExecution",service_name="history"} 7',
  ].join('\n');
  const before = counters('persistence_latency_sum{namespace="default",operation="UpdateWorkflowExecution"} 0.25');
  const c = delta(before, counters(exposition));
  assert.equal(c.get('persistence_latency_sum:GetNamespace'), 0.25);
  assert.equal(c.get('persistence_requests:GetNamespace'), undefined); // requests: our namespace only
  assert.equal(c.get('service_requests:StartWorkflowExecution'), undefined); // the frontend's only
  assert.equal(
    perPipeline(c, 10),
    'server requests 0.0 per pipeline (); persistence operations 100.0 (UpdateWorkflowExecution 100.0)',
  );
  assert.equal(
    persistenceLoad(c, 2),
    'persistence busy 3.5 s in 2.0 s (mean 1.75 in flight), 2.33 ms per operation ' +
      '(most time: UpdateWorkflowExecution 3.3 s / 1000, GetNamespace 0.3 s / 500)',
  );
});

test('bench:scale server metrics: every request kind is named, even past eight at one per pipeline', () => {
  const kinds = ['PollActivityTaskQueue', 'PollWorkflowTaskQueue', 'RespondWorkflowTaskCompleted'];
  const ones = ['DescribeWorkflowExecution', 'PollWorkflowExecutionHistory', 'RecordActivityTaskHeartbeat'];
  const more = ['RecordWorkerHeartbeat', 'RespondActivityTaskCompleted', 'StartWorkflowExecution'];
  const line = (op: string, n: number) => `service_requests{operation="${op}",service_name="frontend"} ${n}`;
  const c = counters(
    [
      ...kinds.map((k, i) => line(k, 10 * (3 - i))),
      ...ones.map((k) => line(k, 2)),
      ...more.map((k) => line(k, 2)),
    ].join('\n'),
  );
  const text = perPipeline(c, 2);
  assert.match(text, /StartWorkflowExecution 1\.0\b/);
  assert.match(
    text,
    /^server requests 36\.0 per pipeline \(PollActivityTaskQueue 15\.0, PollWorkflowTaskQueue 10\.0, /,
  );
  // ties in name order, so two runs print one line
  assert.match(text, /DescribeWorkflowExecution 1\.0, PollWorkflowExecutionHistory 1\.0, RecordActivityTaskHeartbeat/);
});

test('bench:scale CPU per pipeline: each side in ms, ours against it', () => {
  assert.equal(
    cpuPerPipeline({ worker: 51.7, server: 96 }, { worker: 90.4, server: 122.4 }, 1000),
    '51.7, 96.0 (ours 1.75× / 1.28×)',
  );
  assert.equal(cpuPerPipeline({ worker: 0, server: 1 }, {}, 10), '0.0, 100.0 (ours – / –)');
});

test('bench:scale actions: as the server counts them, in our namespace, single markers left out for their batch', () => {
  const action = (type: string, n: number, namespace = 'default') =>
    `action{action_type="${type}",namespace="${namespace}",operation="X",service_name="frontend"} ${n}`;
  const c = counters(
    [
      action('grpc_StartWorkflowExecution', 30),
      action('command_ScheduleActivityTask', 20),
      action('grpc_RecordActivityTaskHeartbeat', 70),
      action('command_RecordMarker_core_patch', 10),
      action('command_BatchMarkers', 10),
      action('grpc_StartWorkflowExecution', 99, 'temporal_system'),
    ].join('\n'),
  );
  assert.equal(totalActions(c), 130);
  assert.equal(
    actionsLine(c, 10, 2),
    '13.0 actions per pipeline, $0.650 per 1,000 pipelines (RecordActivityTaskHeartbeat 7.0, StartWorkflowExecution 3.0)',
  );
  assert.equal(costRow(10, 'ours', c, 31), '| 10 | ours | 13.0 | $0.650 | 31 | 0.0 |');
});

test("bench:scale's worker heartbeats at the worker's default throttle, not the test helper's 500 ms", () => {
  const env = workerEnvOf([10, 1000], {});
  assert.equal(env['DATAOPS_HEARTBEAT_THROTTLE_MS'], String(DEFAULT_HEARTBEAT_THROTTLE_MS));
  assert.equal(env['DATAOPS_MAX_CONCURRENT_WAITS'], '2000');
  assert.equal(workerEnvOf([10], { DATAOPS_HEARTBEAT_THROTTLE_MS: '5000' })['DATAOPS_HEARTBEAT_THROTTLE_MS'], '5000');
});

test('bench:scale retries: each retried attempt counted by its activity and the failure before it', () => {
  const retried = new Map<string, number>();
  const scheduled = (eventId: number, name: string) => ({
    eventId: eventId as never, // a Long in history; read as its string
    activityTaskScheduledEventAttributes: { activityType: { name } },
  });
  const started = (scheduledEventId: number, attempt: number, lastFailure?: object) => ({
    activityTaskStartedEventAttributes: { scheduledEventId: scheduledEventId as never, attempt, lastFailure },
  });
  const queryFailed = { message: 'Failed to query Workflow', cause: { message: 'Timeout expired' } };
  countRetries([scheduled(5, 'dataops.waitForJob'), started(5, 1)], retried);
  assert.equal(retryLine(2, retried), 'N = 2: none, every activity of every pipeline ran once');
  countRetries([scheduled(5, 'dataops.waitForJob'), started(5, 3, queryFailed)], retried);
  countRetries([scheduled(7, 'dataops.waitForJob'), started(7, 2, { message: 'boom' })], retried);
  countRetries([scheduled(5, 'dataops.waitForJob'), started(5, 2, queryFailed)], retried);
  assert.equal(
    retryLine(4, retried),
    'N = 4: 3 retried attempts (0.75 per pipeline): dataops.waitForJob after "Failed to query Workflow <- ' +
      'Timeout expired" ×2; dataops.waitForJob after "boom" ×1',
  );
});

test("bench:scale server metrics: a side's closing read waits until the server has published its last actions", async () => {
  // As the dev server does: the actions of a side's last second appear about a second after they were taken. Here
  // the endpoint shows 2 upserts from its second scrape on, 1 before; then nothing changes.
  let scrapes = 0;
  const server = createServer((_req, res) => {
    scrapes++;
    const upserts = scrapes === 1 ? 1 : 2;
    res.end(`action{namespace="default",action_type="command_UpsertWorkflowSearchAttributes"} ${upserts}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  try {
    const settled = await settledScrape(url, 10, 10);
    assert.equal(settled.get('action:command_UpsertWorkflowSearchAttributes'), 2, 'the published count');
    assert.equal(scrapes, 3, 'read until two reads agree: 1, then 2, then 2');
    // A plain scrape is what the benchmark read before, and still the first read here.
    scrapes = 0;
    assert.equal((await scrape(url)).get('action:command_UpsertWorkflowSearchAttributes'), 1);
    // A count that never stops changing is read at most `tries` more times.
    let n = 0;
    server.removeAllListeners('request');
    server.on('request', (_req, res) => res.end(`action{namespace="default",action_type="x"} ${++n}\n`));
    assert.equal((await settledScrape(url, 3, 10)).get('action:x'), 4);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
