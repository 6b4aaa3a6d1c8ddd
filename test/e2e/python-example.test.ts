/**
 * The Python caller (examples/python/): its models are what the generator makes of the committed JSON Schemas, and
 * its script starts, follows, cancels and approves against the dev server, the simulator and our worker.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { localServersConfig } from '../../src/config/local-servers.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { freePort, runProcess } from '../helpers/processes.js';
import { delta, settledScrape } from '../../bench/scale/server-metrics.js';
import { PREVIEW, withAddedFields } from '../helpers/contract-samples.js';
import { PromotionPreview } from '../../src/contract/promotion.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { needing } from '../helpers/needs.js';

const example = fileURLToPath(new URL('../../../examples/python/', import.meta.url));
const FAST = { pendingMs: 50, claimMs: 20, runMs: 300, cancelMs: 50, interruptMs: 50 };

/** The virtual environment scripts/install-python-example.sh made (npm test installs it first), if any. */
function installedVenv(): string | undefined {
  try {
    return readFileSync(join(localServersConfig().cacheDir, 'python-example.path'), 'utf8').trim();
  } catch {
    return undefined;
  }
}
const installed = installedVenv();
const venv = () => installed ?? '';
const need = {
  what: "the Python example's environment (Temporal's Python SDK, pydantic)",
  missing: installed ? undefined : `no environment in ${localServersConfig().cacheDir}`,
  install: 'npm run install-python-example (Python >= 3.11 and PyPI; it says why when it cannot)',
};

describe(
  'the Python example',
  ...needing(need, () => {
    test('its models are up to date with the JSON Schemas (run examples/python/generate_models.sh when this fails)', async () => {
      const out = join(mkdtempSync(join(tmpdir(), 'models-')), 'dataops_models');
      const gen = await runProcess('bash', [join(example, 'generate_models.sh'), out], {
        DATAMODEL_CODEGEN: join(venv(), 'bin', 'datamodel-codegen'),
      });
      assert.equal(gen.code, 0, gen.out);
      const committed = join(example, 'dataops_models');
      const files = readdirSync(committed)
        .filter((f) => f.endsWith('.py'))
        .sort();
      assert.deepEqual(
        readdirSync(out)
          .filter((f) => f.endsWith('.py'))
          .sort(),
        files,
      );
      for (const f of files)
        assert.equal(
          readFileSync(join(out, f), 'utf8'),
          readFileSync(join(committed, f), 'utf8'),
          `${f} is out of date`,
        );
    });

    test('its result models take fields a later version adds; its input models still refuse an unknown field', async () => {
      // The preview as the worker answers it, and as a later version could: fields added at the top and nested.
      const script = [
        'import json, sys',
        'from pydantic import ValidationError',
        'from dataops_models.PromotionPreview import PromotionPreview',
        'from dataops_models.ApproveInput import ApproveInput',
        'for text in sys.argv[1:3]:',
        '    p = PromotionPreview.model_validate(json.loads(text))',
        '    print("preview", p.previewId, p.summary.created, p.items[0].tds[0].target_id)',
        'try:',
        '    ApproveInput.model_validate({"previewId": "preview-1", "aproved_by": "a typo"})',
        '    print("input taken")',
        'except ValidationError as e:',
        '    print("input refused:", e.errors()[0]["type"], e.errors()[0]["loc"])',
      ].join('\n');
      const preview = PromotionPreview.parse(PREVIEW);
      const run = await runProcess(
        join(venv(), 'bin', 'python'),
        ['-c', script, JSON.stringify(preview), JSON.stringify(withAddedFields(preview))],
        { PYTHONPATH: example },
      );
      assert.equal(run.code, 0, run.out);
      assert.equal(
        run.out.trim(),
        ['preview preview-1 2 td-9', 'preview preview-1 2 td-9', "input refused: extra_forbidden ('aproved_by',)"].join(
          '\n',
        ),
      );
    });

    describe('against the dev server, the simulator and a worker', () => {
      let t: TestEnv;
      let sim: RunningSimulator;
      let metricsUrl: string;
      before(async () => {
        const metricsPort = await freePort();
        metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
        t = await startDevServerEnv({}, { metricsPort });
        ({ sim } = await startTestSimulator({ jobDurations: FAST }));
      });
      after(async () => {
        await sim?.close();
        await t?.env.teardown();
      });

      test('starts, follows, cancels and approves, as the contract says', async () => {
        // The profiling run the script cancels runs long enough to be cancelled mid-flight; the test run it follows
        // runs for 5 s, during which its history does not grow (the job's status is reported once, as it starts).
        sim.controls.planJobs({ job_key: 'run-profile', durations: { runMs: 600_000 } });
        sim.controls.planJobs({ job_key: 'run-tests', durations: { runMs: 5_000 } });
        const before = await settledScrape(metricsUrl);
        const run = await withProjectWorker(t.env, await simDeps(sim), (taskQueue) =>
          runProcess(
            join(venv(), 'bin', 'python'),
            [
              join(example, 'dataops_example.py'),
              ...['--address', t.env.connection.options.address, '--task-queue', taskQueue],
              ...['--table-group', SEED_IDS.tableGroups.finance, '--test-suite', SEED_IDS.testSuites.financeProd],
              ...['--promote-from', SEED_IDS.testSuites.salesDev, '--promote-to', SEED_IDS.testSuites.salesProd],
            ],
            { PYTHONPATH: example },
          ),
        );
        assert.equal(run.code, 0, run.out);
        assert.match(run.out, /^bad input: refused locally/m);
        assert.match(
          run.out,
          /^test run: waiting for test_run, job \S+ (pending|claimed|running), \d+ polls$/m,
          'the live status while it waits',
        );
        assert.match(run.out, /^test run: completed, score [\d.]+ %$/m);
        assert.match(run.out, /^profiling: cancelled; remote job \S+ canceled$/m);
        assert.match(run.out, /^promotion: stale approval refused: StalePreview$/m);
        assert.match(run.out, /^promotion: approved, applied: /m);
        assert.match(run.out, /^all steps behaved as the contract says$/m);
        // It follows the contract's advice: a look describes the run, and queries it only once its history has
        // grown. Only the script asks this server anything of the kind. Read once the server has published its last
        // requests (about once a second), so the script's last looks and queries are counted.
        const asked = delta(before, await settledScrape(metricsUrl));
        const queries = asked.get('service_requests:QueryWorkflow') ?? 0;
        const looks = asked.get('service_requests:DescribeWorkflowExecution') ?? 0;
        assert.ok(queries >= 3, `the progress and the preview were queried: ${queries} queries`);
        // Measured: 7 queries for 32 looks; each look querying, 29 for 31 (the worker's own describes are a few, one
        // per submission; the progress read after the cancel is a query without a look).
        assert.ok(queries * 2 <= looks, `${queries} queries for ${looks} looks: asked at a history it had answered`);
      });
    });
  }),
);
