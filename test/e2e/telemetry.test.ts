/**
 * Traces and metrics of a real run: a worker process and the CLI with an OTLP endpoint export their spans with the
 * real OTLP/HTTP exporter to a receiver on a socket (one trace from the CLI's start through the workflow to every
 * service call, no secret in it), and the worker's Prometheus endpoint serves the project's metrics beside the SDK's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureNamespace } from '../../src/setup/nexus.js';
import { SEED_IDS, SEED_USERS } from '../../src/simulator/index.js';
import {
  dist,
  freePort,
  runProcess,
  simControls,
  startSimulatorProcess,
  startWorkerProcess,
  type Proc,
  simulatorService,
} from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  links?: { traceId: string; spanId: string }[];
  attributes?: { key: string; value: Record<string, unknown> }[];
}
interface OtlpExport {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** An OTLP/HTTP traces receiver: keeps every export's body as it came. */
async function startReceiver(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}`, bodies };
}

const spansOf = (bodies: string[]) =>
  bodies.flatMap((b) =>
    (JSON.parse(b) as OtlpExport).resourceSpans.flatMap((r) => {
      const service = r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
      return r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, service })));
    }),
  );
const attr = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value;

describe('traces and metrics of a run (worker and CLI processes, dev server, OTLP receiver)', () => {
  let t: TestEnv;
  let sim: { proc: Proc; url: string };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const workers: Proc[] = [];
  before(async () => {
    // With the search attributes registered, as a deployment has them: the CLI's start sets the run's first ones.
    t = await startDevServerEnv({}, { searchAttributes: true });
    sim = await startSimulatorProcess();
    receiver = await startReceiver();
    await simControls(() => sim.url)('PUT', '/_sim/job-durations', { pendingMs: 200, claimMs: 100, runMs: 800 });
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await sim?.proc.stop();
    receiver?.server.close();
    await t?.env.teardown();
  });

  test('one trace from the CLI through the workflow to each service call; the metrics on the Prometheus endpoint', async () => {
    const taskQueue = uniqueTaskQueue('otel');
    const address = t.env.connection.options.address;
    const metricsPort = await freePort();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const worker = startWorkerProcess({
      ...otel,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(sim.url),
      DATAOPS_BLOB_DIR: mkdtempSync(join(tmpdir(), 'otel-blobs-')),
      METRICS_PROMETHEUS_ADDRESS: `127.0.0.1:${metricsPort}`,
    });
    workers.push(worker);
    // One failed attempt, retried: counted by dataops_activity_failures with its type. The test run is sent by its
    // suite's submitter, whose send activity (sendInTurn) fails once and is retried.
    await simControls(() => sim.url)('POST', '/_sim/faults', {
      kind: 'status',
      status: 503,
      method: 'POST',
      path: '^/api/v1/test-suites/[^/]+/test-runs$',
    });
    const workflowId = `otel-${taskQueue}`;
    const run = await runProcess(
      process.execPath,
      [
        dist('starter.js'),
        'pipeline',
        '--workflow-id',
        workflowId,
        '--table-group',
        SEED_IDS.tableGroups.finance,
        '--test-suite',
        SEED_IDS.testSuites.financeProd,
        '--test-generation',
        'skip',
        '--on-gate-failure',
        'report',
        '--poll-interval',
        '200ms',
      ],
      { ...otel, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, OTEL_SERVICE_NAME: 'nightly-dq' },
    );
    assert.equal(run.code, 0, run.out);

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(
      metrics,
      /dataops_service_calls\S*\{[^}]*endpoint="POST \/api\/v1\/table-groups\/\{id\}\/profiling-runs"[^}]*status="20\d"/,
    );
    assert.match(metrics, /dataops_service_call_latency\S*_bucket\{[^}]*endpoint="GET \/api\/v1\/jobs\/\{id\}"/);
    assert.match(metrics, /dataops_job_duration\S*_bucket\{[^}]*kind="run-profile"[^}]*status="completed"/);
    assert.match(metrics, /dataops_gate_verdicts\S*\{[^}]*verdict="passed"[^}]*\} 1/);
    const failures = metrics
      .split('\n')
      .filter((l) => l.startsWith('dataops_activity_failures') && l.includes('activity="dataops.sendInTurn"'));
    assert.ok(
      failures.some((l) => /retryable="true"/.test(l) && /type="ServerError"/.test(l) && /\} [1-9]\d*$/.test(l)),
      `the retried submission counted: ${failures.join(' | ') || metrics.match(/dataops_activity_failures.*/g)?.join(' | ')}`,
    );
    assert.match(metrics, /temporal_activity_execution_latency/, "beside the SDK's own");
    assert.equal(await worker.stop('SIGTERM'), 0, 'the worker flushes its spans as it stops');

    const spans = await eventually('the worker and the CLI spans exported', () => {
      const all = spansOf(receiver.bodies);
      return (
        all.some((s) => s.name === 'StartWorkflow:dataops.dataQualityPipeline') &&
        all.some((s) => s.name.startsWith('GET /api/v1/jobs/')) &&
        all
      );
    });
    const start = spans.find((s) => s.name === 'StartWorkflow:dataops.dataQualityPipeline');
    assert.equal(start?.service, 'nightly-dq', 'OTEL_SERVICE_NAME names the CLI');
    const trace = spans.filter((s) => s.traceId === start?.traceId);
    for (const name of ['RunWorkflow:dataops.dataQualityPipeline', 'RunActivity:dataops.waitForJob'])
      assert.ok(
        trace.some((s) => s.name === name),
        `${name} in the CLI's trace: ${[...new Set(trace.map((s) => s.name))].join(', ')}`,
      );
    // Each job is waited for by its own wait: the profiling run's and the test run's.
    const waits = trace.filter((s) => s.name === 'RunActivity:dataops.waitForJob');
    assert.ok(waits.length >= 2, `a wait per job (and per retry): ${waits.length}`);
    // The target's submitter sends it (src/exactly-once/workflow/submitter.ts), in a batch activity of its own trace; the send
    // itself, and its service call, are in the pipeline's, linked to that batch's span.
    const submit = spans.find((s) => s.name === 'POST /api/v1/table-groups/{id}/profiling-runs');
    assert.ok(submit, 'the service call');
    assert.equal(submit.traceId, start?.traceId, "the profiling run's send in the CLI's trace");
    const send = trace.find((s) => s.name === 'send submitProfilingRun');
    assert.ok(send, `the send's own span in that trace: ${[...new Set(trace.map((s) => s.name))].join(', ')}`);
    const batch = spans.find((s) => s.name === 'RunActivity:dataops.sendInTurn');
    assert.ok(batch && batch.traceId !== start?.traceId, "the batch activity in the submitter's trace");
    assert.ok(
      send.links?.some((l) => l.spanId === batch.spanId),
      'the send linked to the batch activity that sent it',
    );
    assert.equal(attr(submit, 'http.request.method')?.stringValue, 'POST');
    assert.equal(attr(submit, 'url.template')?.stringValue, '/api/v1/table-groups/{id}/profiling-runs');
    assert.match(String(attr(submit, 'http.response.status_code')?.intValue), /^20\d$/);
    const exported = receiver.bodies.join('\n');
    assert.ok(!exported.includes(SEED_USERS.admin.password), 'no password in any span');
    assert.doesNotMatch(exported, /Bearer|authorization|eyJ[\w-]{10,}/i, 'no token in any span');
  });

  test("a start refused for its search attributes, and the start after it, are one trace: the CLI's", async () => {
    // A namespace that has none registered: the first start, which sets them, is refused, and the CLI starts again
    // without them. Both tries must be in one trace, or the run's spans would follow the second alone.
    const namespace = `otel-no-attributes-${Date.now()}`;
    await ensureNamespace(t.env.connection, namespace);
    // Each try of the CLI names itself: a try the namespace was not yet known to exports a start of its own.
    let tries = 0;
    const flags = [
      'pipeline',
      '--table-group',
      SEED_IDS.tableGroups.finance,
      '--test-suite',
      SEED_IDS.testSuites.financeProd,
    ];
    const run = await eventually(
      'the namespace known to the frontend',
      async () => {
        const service = `refused-${namespace}-${++tries}`;
        const r = await runProcess(process.execPath, [dist('starter.js'), ...flags, '--no-wait', '--json'], {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: service,
          TEMPORAL_ADDRESS: t.env.connection.options.address,
          TEMPORAL_NAMESPACE: namespace,
          TEMPORAL_TASK_QUEUE: uniqueTaskQueue('otel-refused'),
        });
        return !/not found/i.test(r.out) && { ...r, service };
      },
      { tries: 120, delayMs: 250 },
    );
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /refused the run's search attributes/);
    const starts = await eventually('both starts exported', () => {
      const mine = spansOf(receiver.bodies).filter(
        (x) => x.service === run.service && x.name === 'StartWorkflow:dataops.dataQualityPipeline',
      );
      return mine.length >= 2 && mine;
    });
    assert.equal(starts.length, 2, 'a refused start and the one after it');
    assert.equal(new Set(starts.map((x) => x.traceId)).size, 1, 'in one trace');
    const root = spansOf(receiver.bodies).find(
      (x) => x.service === run.service && x.name === 'dataops start dataQualityPipeline',
    );
    assert.ok(root, "the CLI's span around both");
    assert.equal(root.traceId, starts[0]!.traceId);
    for (const start of starts) assert.equal(start.parentSpanId, root.spanId, 'each try a child of it');
  });
});
