/**
 * Prints the history of each pipeline shape on the dev server with the search attributes registered:
 * `npm run history-shapes`. One line per shape (events, status reports, workflow tasks), and with `--events` every
 * event, to see where a history's events go; `--status-reports=N` sets the pipelines' `statusReports`. The bounds themselves are asserted in test/workflows/history-bounds.
 */
import { SEED_IDS } from '../../src/simulator/index.js';
import { ensureSearchAttributes } from '../../src/setup/search-attributes.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';
import { SHAPES_SIMULATOR, describeEvents, pipelineShapes, runPipeline } from '../helpers/history-shapes.js';

const TG = SEED_IDS.tableGroups;
const printEvents = process.argv.includes('--events');
const reportsArg = process.argv.find((a) => a.startsWith('--status-reports='))?.split('=')[1];
const statusReports = reportsArg === undefined ? {} : { statusReports: Number(reportsArg) };

async function main(): Promise<void> {
  const dev = await startDevServerEnv();
  await ensureSearchAttributes(dev.env.connection, dev.env.namespace ?? 'default');
  try {
    for (const shape of pipelineShapes(TG)) {
      // A simulator per shape: TestGen queues a generation job after a table group's first profiling run only.
      const { sim } = await startTestSimulator(SHAPES_SIMULATOR);
      shape.before?.(sim);
      const { events } = await runPipeline(dev.env, sim, { ...shape.input, ...statusReports }, async () =>
        shape.during?.(sim, (what, check) => eventually(what, check, { tries: 2_400 })),
      );
      const d = describeEvents(events);
      console.log(
        `${shape.name.padEnd(48)} ${String(events.length).padStart(3)} events, ${d.reports} status reports, ${d.tasks} workflow tasks`,
      );
      if (printEvents) for (const line of d.lines) console.log(`  ${line}`);
      await sim.close();
    }
  } finally {
    await dev.env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
