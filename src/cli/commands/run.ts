/**
 * The commands that run one workflow and report its result: `pipeline`, `profile`, `test-run` and `order`.
 */
import type { Command } from 'commander';
import {
  ProfileTableGroupInput,
  RunOrderInput,
  RunTestSuiteInput,
  WORKFLOW_TYPES,
  type DataQualityPipelineResult,
  type ProfileTableGroupResult,
  type RunOrderResult,
  type RunTestSuiteResult,
} from '../../contract/index.js';
import { formatOrder, formatPipeline, formatProfile, formatTestRun, orderExit, pipelineExit } from '../format.js';
import {
  checked,
  jobInput,
  jobOptions,
  pipelineInput,
  pipelineOptions,
  profileOption,
  runOptions,
  type JobFlags,
  type PipelineFlags,
  type RunFlags,
} from '../inputs.js';
import { paramArg } from '../parsers.js';
import type { CommandContext } from '../runner.js';

interface OrderFlags extends RunFlags {
  kitchen: string;
  recipe: string;
  variation: string;
  param?: Record<string, unknown>;
  waitForRun?: boolean;
  profile: string;
}

export function registerRunCommands(program: Command, { starter: s, action }: CommandContext): void {
  runOptions(
    pipelineOptions(
      program
        .command('pipeline')
        .description('run the data-quality pipeline: (order) → profile → generation → test run → gates'),
    ),
  ).action(
    action(async (f: PipelineFlags & RunFlags) => {
      const input = pipelineInput(f);
      const handle = await s().start(WORKFLOW_TYPES.dataQualityPipeline, input, f);
      await s().finish<DataQualityPipelineResult>(handle, f, (r) => formatPipeline(r, input.gates), pipelineExit);
    }),
  );

  runOptions(jobOptions(program.command('profile').description('profile a table group (waits through interrupts)')))
    .requiredOption('--table-group <id>', 'table group to profile')
    .action(
      action(async (f: JobFlags & RunFlags & { tableGroup: string }) => {
        const input = checked(ProfileTableGroupInput, { ...jobInput(f), tableGroupId: f.tableGroup });
        await s().finish<ProfileTableGroupResult>(
          await s().start(WORKFLOW_TYPES.profileTableGroup, input, f),
          f,
          formatProfile,
        );
      }),
    );

  runOptions(jobOptions(program.command('test-run').description('run a test suite and fetch its summary')))
    .requiredOption('--test-suite <id>', 'test suite to run')
    .action(
      action(async (f: JobFlags & RunFlags & { testSuite: string }) => {
        const input = checked(RunTestSuiteInput, { ...jobInput(f), testSuiteId: f.testSuite });
        await s().finish<RunTestSuiteResult>(await s().start(WORKFLOW_TYPES.runTestSuite, input, f), f, formatTestRun);
      }),
    );

  profileOption(
    runOptions(program.command('order').description('run an order in a kitchen, with runtime overrides'))
      .requiredOption('--kitchen <name>', 'kitchen')
      .requiredOption('--recipe <name>', 'recipe')
      .requiredOption('--variation <name>', 'variation')
      .option('--param <name=value>', 'runtime override (repeatable)', paramArg)
      .option('--wait-for-run', 'wait for the order run to finish; exit 8 when it did not complete'),
  ).action(
    action(async (f: OrderFlags) => {
      const input = checked(RunOrderInput, {
        profile: f.profile,
        kitchen: f.kitchen,
        recipe: f.recipe,
        variation: f.variation,
        parameters: f.param ?? {},
        wait: Boolean(f.waitForRun),
      });
      await s().finish<RunOrderResult>(await s().start(WORKFLOW_TYPES.runOrder, input, f), f, formatOrder, orderExit);
    }),
  );
}
