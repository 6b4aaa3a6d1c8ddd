// A reporter for Node's test runner, beside TAP (scripts/run-tests.mjs adds it): it writes one JSON line per skipped
// test or suite (its file, name and reason), one per failed test or suite (its file, name and the first line of its
// error, so that a log's last lines name what failed), and, at the end, the counts the run's closing line prints.
// A suite skipped as a whole (a peer missing outside CI) counts as one skip: its tests never report.
// A failed suite counts only when none of its children failed (a hook that failed after its tests passed).
export default async function* summary(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  /**
   * Failures reported at each nesting level since the suite around them began. Keyed by level alone: an event's `file`
   * is where its test was declared (a helper's file, for a test a helper declares), and the runner reports each
   * file's tests together, children before their suite.
   */
  const failsBelow = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, file, details, skip, todo } = event.data;
    const failed = event.type === 'test:fail';
    if (failed) failsBelow.set(nesting, (failsBelow.get(nesting) ?? 0) + 1);
    const suite = details?.type === 'suite';
    if (suite) {
      const childFails = failsBelow.get(nesting + 1) ?? 0;
      failsBelow.delete(nesting + 1);
      if (failed && childFails === 0) counts.failed++;
      if (failed) yield failure(event.data); // a failed hook's error is the suite's: its tests say only "cancelled"
      if (skip === undefined) continue;
    }
    if (skip !== undefined) {
      counts.skipped++;
      yield `${JSON.stringify({ skipped: { file, name, reason: typeof skip === 'string' ? skip : '' } })}\n`;
    } else if (todo !== undefined) counts.todo++;
    else if (!suite) {
      counts[failed ? 'failed' : 'passed']++;
      if (failed) yield failure(event.data);
    }
  }
  yield `${JSON.stringify({ counts })}\n`;
}

/** A failed test's line: its file, name, and the first line of what it threw (the runner wraps it as the cause). */
function failure({ file, name, details }) {
  const error = details?.error?.cause ?? details?.error;
  const first = String(error?.message ?? error ?? '')
    .split('\n')[0]
    .slice(0, 300);
  return `${JSON.stringify({ failed: { file, name, error: first } })}\n`;
}
