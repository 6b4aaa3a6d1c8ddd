import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flagged, pipelineInput } from '../../src/cli/inputs.js';
import { parseDurationMs, positiveDurationMs } from '../../src/cli/parsers.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { cli } from '../helpers/cli.js';
import { listQuery, statusArg, workflowTypeArg } from '../../src/cli/commands/list.js';
import { dist, freePort, runProcess } from '../helpers/processes.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('starter CLI usage', () => {
  test('--help lists the commands; each command has its own --help', async () => {
    const top = await cli(['--help']);
    assert.equal(top.code, 0);
    for (const c of [
      'pipeline',
      'profile',
      'test-run',
      'order',
      'promote',
      'approve',
      'reject',
      'cancel',
      'status',
      'schedule',
    ])
      assert.match(top.out, new RegExp(`\\n  ${c}\\b`), c);
    const pipeline = await cli(['pipeline', '--help']);
    assert.equal(pipeline.code, 0);
    for (const flag of [
      '--table-group',
      '--test-suite',
      '--min-score-percent',
      '--max-failed',
      '--warnings-as-failures',
      '--follow',
      '--json',
    ])
      assert.ok(pipeline.out.includes(flag), flag);
    const schedule = await cli(['schedule', 'create', '--help']);
    for (const flag of ['--cron', '--every', '--overlap', '--catchup-window', '--paused', '--note'])
      assert.ok(schedule.out.includes(flag), flag);
    // A default in the units the flag takes: it read "(default: 300000)".
    const promote = (await cli(['promote', '--help'])).out.replace(/\s+/g, ' ');
    assert.match(promote, /--approval-timeout <duration> how long to wait for an approval \(default: 1d\)/);
    assert.match(promote, /--preview-wait <duration> .*\(default: 5m\)/);
  });

  const bad: [string[], RegExp][] = [
    [['pipeline', '--test-suite', 's'], /required option '--table-group <id>' not specified/],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--min-score-percent', '101'],
      /option '--min-score-percent <n>' argument '101' is invalid\. expected a number from 0 to 100/,
    ],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--max-failed', 'two'],
      /'--max-failed <n>' argument 'two' is invalid\. expected a whole number/,
    ],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--on-gate-failure', 'shrug'],
      /'--on-gate-failure <mode>' argument 'shrug' is invalid\. Allowed choices are fail, report/,
    ],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--order', 'kitchen-only'],
      /expected kitchen\/recipe\/variation/,
    ],
    [['pipeline', '--table-group', 't', '--test-suite', 's', '--param', 'x=1'], /--param: only with --order/],
    // 0 used to become the 24-hour default silently; it is refused, naming the field.
    [
      ['promote', '--from-suite', 'a', '--to-suite', 'b', '--preset', 'upsert', '--approval-timeout', '0'],
      /--approval-timeout \(approval\.timeoutMs\): Too small: expected number to be >=1000/,
    ],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--poll-interval', 'soon'],
      /'--poll-interval <duration>' argument 'soon' is invalid/,
    ],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--poll-interval', '50ms'],
      /--poll-interval \(pollIntervalMs\): Too small/,
    ],
    // A zero or an empty value used to be dropped, and the default taken in its place; each is refused, naming the flag.
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--poll-interval', '0'],
      /--poll-interval \(pollIntervalMs\): Too small: expected number to be >=100/,
    ],
    [
      ['profile', '--table-group', 't', '--max-poll-interval', '0s'],
      /--max-poll-interval \(maxPollIntervalMs\): Too small/,
    ],
    [
      ['test-run', '--test-suite', 's', '--expected-duration', '0s'],
      /--expected-duration \(expectedDurationMs\): Too small/,
    ],
    [['test-run', '--test-suite', 's', '--project-code', ''], /--project-code \(projectCode\): Too small/],
    [
      ['schedule', 'create', 's1', '--every', '0s', '--table-group', 't', '--test-suite', 's'],
      /'--every <duration>' argument '0s' is invalid\. expected a duration above zero/,
    ],
    [
      ['schedule', 'create', 's1', '--every', '1h', '--catchup-window', '0', '--table-group', 't', '--test-suite', 's'],
      /'--catchup-window <duration>' argument '0' is invalid\. expected a duration above zero/,
    ],
    [
      ['schedule', 'create', 's1', '--cron', ' ', '--table-group', 't', '--test-suite', 's'],
      /'--cron <expression>' argument ' ' is invalid\. expected a cron expression, got an empty value/,
    ],
    [
      ['pipeline', '--table-group', '', '--test-suite', 's', '--order', 'k/r/v', '--param', 'x=1'],
      /--table-group \(tableGroupId\): Too small/,
    ],
    [['pipeline', '--table-group', 't', '--test-suite', 's', '--frobnicate'], /unknown option '--frobnicate'/],
    [
      ['promote', '--from-suite', 'a', '--to-suite', 'b'],
      /--preset: required, unless all of --on-match, --on-new and --on-absence/,
    ],
    [
      ['promote', '--from-suite', 'a', '--to-suite', 'b', '--preset', 'upsert', '--on-new', 'skip'],
      /--preset: give a preset or --on-match/,
    ],
    [['approve', 'wf-1'], /required option '--preview-id <id>' not specified/],
    [['schedule', 'create', 's1', '--table-group', 't', '--test-suite', 's'], /--cron \/ --every: give exactly one/],
    [
      [
        'schedule',
        'create',
        's1',
        '--cron',
        '0 2 * * *',
        '--timezone',
        'Mars/Base',
        '--table-group',
        't',
        '--test-suite',
        's',
      ],
      /'--timezone <name>' argument 'Mars\/Base' is invalid\. expected an IANA time zone/,
    ],
    [
      ['schedule', 'create', 's1', '--every', '1h', '--timezone', 'UTC', '--table-group', 't', '--test-suite', 's'],
      /--timezone: applies to --cron only/,
    ],
    [['nonsense'], /unknown command 'nonsense'/],
    [
      ['pipeline', '--table-group', 't', '--test-suite', 's', '--status-reports', '21'],
      /'--status-reports <n>' argument '21' is invalid\. expected a whole number from 0 to 20/,
    ],
    // It was a plain error: exit 1, as if a workflow had failed.
    [['list', '--limit', '0'], /'--limit <n>' argument '0' is invalid\. expected a whole number from 1 to 1000/],
  ];
  for (const [args, message] of bad) {
    test(`exit 2 with the flag and why: ${args.join(' ')}`, async () => {
      const r = await cli(args);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
    });
  }

  test('bad connection settings name the variable', async () => {
    const r = await cli(['status', 'wf-1'], { TEMPORAL_ADDRESS: 'nowhere' });
    assert.equal(r.code, 2);
    assert.match(r.err, /TEMPORAL_ADDRESS: expected host:port, got 'nowhere'/);
    const flag = await cli(['--address', 'also wrong', 'status', 'wf-1']);
    assert.equal(flag.code, 2);
    assert.match(flag.err, /TEMPORAL_ADDRESS: expected host:port/);
  });

  // The SDK says only "Failed to connect before the deadline": which server, of which setting, was left to guess.
  test('a Temporal server that cannot be reached is named by the CLI and the worker, with no secret echoed', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'data-prod', TEMPORAL_API_KEY: 'key-not-to-print' };
    const r = await cli(['status', 'wf-1'], env);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      new RegExp(`^error: cannot connect to the Temporal server at ${address} \\(namespace data-prod\\): `),
    );
    const worker = await runProcess(
      process.execPath,
      [dist('worker.js')],
      { ...env, DATAOPS_BASE_URL: 'http://127.0.0.1:1', DATAOPS_API_TOKEN: 'token-not-to-print' },
      60_000,
    );
    assert.equal(worker.code, 1, worker.out);
    assert.match(
      worker.out,
      new RegExp(`\\ncannot connect to the Temporal server at ${address} \\(namespace data-prod\\): `),
    );
    assert.doesNotMatch(worker.out, /\n\s+at /, 'a message, not a stack trace');
    for (const out of [r.err, worker.out]) assert.doesNotMatch(out, /not-to-print/);
  });

  test('--status-reports reaches the input; without it, the input leaves it to the contract default', () => {
    const flags = { profile: 'default', tableGroup: TG.finance, testSuite: TS.financeProd };
    assert.equal(pipelineInput({ ...flags, statusReports: 0 }).statusReports, 0);
    assert.equal(pipelineInput({ ...flags, statusReports: 5 }).statusReports, 5);
    assert.equal(pipelineInput(flags).statusReports, undefined, 'the worker applies the default, one per job');
  });

  test('an input problem names the flag that gave the field, by the field or its parent', () => {
    assert.equal(flagged('pollIntervalMs'), '--poll-interval (pollIntervalMs)');
    assert.equal(flagged('order.kitchen'), '--order (order.kitchen)', 'the parent gives it');
    assert.equal(flagged('order.parameters.x'), '--param (order.parameters.x)', 'the nearest listed path wins');
    assert.equal(flagged('(input)'), '(input)', 'a path no flag gives stays as it is');
    assert.equal(flagged('heartbeatTimeoutMs'), 'heartbeatTimeoutMs');
  });

  test('durations', () => {
    assert.equal(parseDurationMs('500ms'), 500);
    assert.equal(parseDurationMs('30s'), 30_000);
    assert.equal(parseDurationMs('1.5h'), 5_400_000);
    assert.equal(parseDurationMs('2d'), 172_800_000);
    assert.equal(parseDurationMs('250'), 250);
    assert.throws(() => parseDurationMs('5 minutes'), /expected a duration/);
    assert.equal(parseDurationMs('0s'), 0, 'zero is a duration; the input check decides whether it is allowed');
    assert.equal(positiveDurationMs('1h'), 3_600_000);
    assert.throws(() => positiveDurationMs('0.1ms'), /expected a duration above zero/, 'rounds to zero');
  });
  // `--type runOrder`, the name the contract and `status` use, was refused: only `dataops.runOrder` was a choice.
  test('list takes a workflow type by its own name or its registered one, and a status in any case', () => {
    assert.equal(workflowTypeArg('runOrder'), 'dataops.runOrder');
    assert.equal(workflowTypeArg('dataops.runOrder'), 'dataops.runOrder');
    assert.equal(statusArg('running'), 'Running');
    assert.equal(statusArg('TimedOut'), 'TimedOut');
    assert.equal(
      listQuery({ type: workflowTypeArg('promoteTestDefinitions'), status: statusArg('RUNNING') }),
      'WorkflowType IN ("dataops.promoteTestDefinitions") AND ExecutionStatus = "Running"',
    );
    assert.throws(() => workflowTypeArg('order'), /expected one of dataQualityPipeline, profileTableGroup, /);
    assert.throws(() => workflowTypeArg('other.runOrder'), /expected one of/);
    assert.throws(() => statusArg('done'), /expected one of Running, Completed, /);
  });
});
