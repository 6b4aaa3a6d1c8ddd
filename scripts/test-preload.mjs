// Loaded by the test command (run-tests.mjs, `--import`) into each test file's process.
//
// A file whose tests have all ended must exit even if something it started still holds the event loop (a test that
// timed out can leave a worker's connection open); otherwise that file, and the whole run, would never end. Node's
// --test-force-exit does that, but loses verdicts: the runner may exit before it has read the end of a file's report,
// and print fewer tests than ran, or cut its own report short, still exiting 0 (nodejs/node#64833, Node 22 and 24
// alike). So the run does not use it. Instead a file's process that is still up a minute after its last test ended
// (its teardown included) exits, and fails: something it started was never stopped.
import { afterEach, beforeEach } from 'node:test';

/**
 * How long a file's process may stay up after its last test: its `after` hooks (teardown) run in that time.
 * TEST_LINGER_MS sets it (the runner's own test does, to see a file fail for it quickly).
 */
const LINGER_MS = Number(process.env.TEST_LINGER_MS) || 60_000;

if (process.env.NODE_TEST_CONTEXT === 'child-v8') {
  // The report goes to the runner through stdout, a pipe: blocking writes leave nothing queued at an exit.
  process.stdout._handle?.setBlocking?.(true);
  let linger;
  beforeEach(() => clearTimeout(linger));
  afterEach(() => {
    clearTimeout(linger);
    linger = setTimeout(() => {
      process.stderr.write(
        `${process.argv[1]}: still running ${LINGER_MS / 1000} s after its last test; exiting, failed: ` +
          'something it started (a server, a connection, a timer) was never stopped\n',
      );
      process.exit(1);
    }, LINGER_MS).unref();
  });
}
