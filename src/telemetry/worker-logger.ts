/**
 * The SDK's logger, less one warning that is not one. The waits task queue's worker runs activities only, by design
 * (README "In your own worker"), and the SDK warns `No workflows registered, not polling for workflow tasks` at every
 * start of it: on every worker start, a WARN in logs that operations alert on, and the first line a newcomer reads in
 * `npm start`. For that queue only, it is logged at DEBUG; everything else passes as it came.
 */
import { DefaultLogger, type LogEntry, type LogLevel, type LogMetadata } from '@temporalio/worker';

const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

export class WorkerLogger extends DefaultLogger {
  constructor(
    level: LogLevel,
    /** The task queue whose worker has no workflows by design. */
    private readonly activitiesOnlyQueue: string,
    logFunction?: (entry: LogEntry) => void,
  ) {
    super(level, logFunction);
  }

  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const expected = level === 'WARN' && message === NO_WORKFLOWS && meta?.taskQueue === this.activitiesOnlyQueue;
    super.log(expected ? 'DEBUG' : level, message, meta);
  }
}
