/**
 * The Starter: one Temporal connection per CLI invocation, starting workflows, waiting for (or following) their
 * results, and turning outcomes into printed results and exit codes.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  ScheduleNotFoundError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Env } from '../config/env.js';
import type { StarterConfig } from '../config/starter.js';
import { connectingTo } from '../config/temporal.js';
import {
  ownName,
  searchAttributesAtStart,
  startWithSearchAttributes,
  type DataQualityPipelineResult,
  type WorkflowType,
} from '../contract/index.js';
import { describeRoot, rootCause } from './failure.js';
import { follow } from './follow.js';
import { decisionOrNoWorker, resultOrNoWorker } from './query.js';
import { EXIT, failureExit, formatPipeline } from './format.js';
import type { RunFlags } from './inputs.js';
import { UsageError } from './parsers.js';
import { startConfiguredTracing } from '../setup/optional-packages.js';
import type { Tracing } from '../telemetry/tracing-types.js';
import { inSpan } from '../telemetry/spans.js';

export interface CliIO {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  /** The environment the configuration is read from. @default the process environment */
  env?: Env;
  /**
   * The process is the CLI's own (`dataops`): Ctrl+C during a wait says that the run goes on, and exits 130. Not for
   * a host that runs commands in its own process (the demo), whose Ctrl+C is its own.
   */
  ownsProcess?: boolean;
}

/**
 * An id that names no workflow or schedule, a closed workflow where a running one is needed, or a run of another type
 * than the command decides (exit 6).
 */
export class NotFound extends Error {
  override readonly name = 'NotFound';

  /** A workflow that has closed, where a running one was needed; `consequence` says what that means here. */
  static closed(workflowId: string, status: string, consequence?: string): NotFound {
    return new NotFound(
      `workflow ${workflowId} has already closed (${status})${consequence ? `; ${consequence}` : ''}`,
    );
  }
}

export class Starter {
  private client?: Client;
  private connection?: Connection;
  private tracing?: Tracing | undefined;
  exitCode: number = EXIT.ok;

  constructor(
    readonly config: StarterConfig,
    readonly io: CliIO,
  ) {}

  async connect(): Promise<Client> {
    if (this.client) return this.client;
    this.connection = await connectingTo(this.config.temporal, (options) => Connection.connect(options));
    // With an OTLP endpoint, a workflow started here continues this process's trace.
    this.tracing ??= await startConfiguredTracing(this.config.tracing);
    this.client = new Client({
      connection: this.connection,
      namespace: this.config.temporal.namespace,
      ...(this.tracing ? { interceptors: this.tracing.clientInterceptors } : {}),
    });
    return this.client;
  }

  /**
   * The error to show for `err`, said as what it means: the server answers "not found" both for an id that names
   * nothing and for a signal or update to a closed workflow, and names a schedule by its internal workflow id.
   */
  async explained(err: unknown): Promise<unknown> {
    const ns = this.config.temporal.namespace;
    if (err instanceof ScheduleNotFoundError) return new NotFound(`no schedule ${err.scheduleId} in namespace ${ns}`);
    if (!(err instanceof WorkflowNotFoundError)) return err;
    const status = await this.client?.workflow
      .getHandle(err.workflowId)
      .describe()
      .then(
        (d) => d.status.name,
        () => undefined,
      );
    if (!status) {
      // `status nightly` for the schedule `nightly`: its runs have ids of their own.
      const schedule = await this.client?.schedule
        .getHandle(err.workflowId)
        .describe()
        .then(
          () => true,
          () => false,
        );
      const hint = schedule
        ? ` (a schedule has that id: dataops schedule describe ${err.workflowId} lists its runs)`
        : '';
      return new NotFound(`no workflow ${err.workflowId} in namespace ${ns}${hint}`);
    }
    return status === 'RUNNING' ? err : NotFound.closed(err.workflowId, status);
  }

  async close(): Promise<void> {
    await this.connection?.close();
    await this.tracing?.shutdown();
  }

  print(line: string): void {
    this.io.out.write(`${line}\n`);
  }

  link(workflowId: string): string | null {
    return this.config.uiUrl
      ? `${this.config.uiUrl}/namespaces/${encodeURIComponent(this.config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`
      : null;
  }

  /**
   * Runs `start` with the run's first search attributes in it (config.searchAttributes; `searchAttributesAtStart`),
   * for workflow `type` (a registered name); refused for them, without them, with a warning.
   */
  withSearchAttributes<T>(
    type: string,
    input: unknown,
    start: (extra: { typedSearchAttributes?: SearchAttributePair[] }) => Promise<T>,
  ): Promise<T> {
    if (!this.config.searchAttributes) return start({});
    const pairs = searchAttributesAtStart(ownName(type) as WorkflowType, input as never);
    return startWithSearchAttributes(pairs, start, (reason) =>
      this.io.err.write(
        `warning: namespace ${this.config.temporal.namespace} refused the run's search attributes (${reason}); ` +
          'going on without them. Register them (a worker does at its start unless DATAOPS_SEARCH_ATTRIBUTES=off; ' +
          'or dataops setup search-attributes), or set DATAOPS_SEARCH_ATTRIBUTES=off here too\n',
      ),
    );
  }

  async start(type: string, input: unknown, flags: RunFlags): Promise<WorkflowHandle> {
    const client = await this.connect();
    // The id names the workflow by its own name (its type less the `dataops.` prefix), as ids did before 1.0.
    const workflowId =
      flags.workflowId ??
      `${ownName(type)}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-${randomUUID().slice(0, 8)}`;
    // One span around the start, so that with tracing on a start refused for its search attributes and the one after
    // it, and so the run's own spans, are one trace (each start would otherwise be the root of its own).
    const handle = await inSpan(`dataops start ${ownName(type)}`, () =>
      this.withSearchAttributes(type, input, (attributes) =>
        client.workflow.start(type, {
          taskQueue: this.config.temporal.taskQueue,
          workflowId,
          args: [input],
          ...attributes,
        }),
      ),
    ).catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new UsageError(
          `--workflow-id: workflow ${workflowId} is already running (see it with: dataops status ${workflowId})`,
        );
      throw err;
    });
    if (!flags.json) {
      this.print(`started ${type} ${workflowId}`);
      const url = this.link(workflowId);
      if (url) this.print(`web UI: ${url}`);
    }
    return handle;
  }

  /** Waits for the result (following if asked), prints it, and sets the exit code from the outcome. */
  async finish<T>(
    handle: WorkflowHandle,
    flags: RunFlags,
    format: (r: T) => string,
    failed: (r: T) => number = () => EXIT.ok,
  ): Promise<T | undefined> {
    if (flags.wait === false) {
      if (flags.json) this.print(JSON.stringify({ workflowId: handle.workflowId }));
      return undefined;
    }
    // With --json, the live lines go to stderr: stdout stays one JSON document.
    if (flags.follow)
      await this.interruptible(handle, () =>
        follow(handle, flags.json ? this.io.err : this.io.out, undefined, this.config.deployments),
      );
    try {
      const result = (await this.interruptible(handle, () => resultOrNoWorker(handle, this.io.err))) as T;
      this.print(flags.json ? JSON.stringify(result, null, 2) : format(result));
      this.exitCode = failed(result);
      return result;
    } catch (err) {
      this.exitCode = this.failure(err, flags);
      return undefined;
    }
  }

  /**
   * Runs `wait`, a wait on a run; Ctrl+C during it says that only the wait stopped (the run goes on, and how to follow
   * or cancel it), and exits 130 as a shell expects of an interrupted command. Before, the CLI ended silently, and a
   * user could not tell whether the pipeline had been cancelled with it.
   */
  async interruptible<T>(handle: WorkflowHandle, wait: () => Promise<T>): Promise<T> {
    if (!this.io.ownsProcess) return wait();
    const id = handle.workflowId;
    const interrupted = () => {
      this.io.err.write(
        `\nstopped waiting; ${id} goes on (dataops status ${id} --follow follows it again, dataops cancel ${id} ` +
          `cancels it)\n`,
      );
      process.exit(EXIT.interrupted);
    };
    process.once('SIGINT', interrupted);
    try {
      return await wait();
    } finally {
      process.off('SIGINT', interrupted);
    }
  }

  /**
   * Runs an update of a workflow of type `type`; a refusal prints its type and reason (not just "Workflow Update
   * failed") and exits 7. One sent to a workflow of another type, which has no handler for it, says what that
   * workflow is and exits 6, as for an id that names no such workflow.
   */
  async update<T>(
    handle: WorkflowHandle,
    type: string,
    run: () => Promise<T>,
    show: (ack: T) => string,
  ): Promise<void> {
    try {
      this.print(show(await decisionOrNoWorker(handle, run, this.io.err)));
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
      const actual = await handle.describe().then(
        (d) => d.type,
        () => undefined,
      );
      // By own name: a 0.x run still draining has its type without the `dataops.` prefix, and decides as well.
      if (actual !== undefined && ownName(actual) !== ownName(type))
        throw new NotFound(`workflow ${handle.workflowId} is a ${actual}: only a ${type} takes this decision`);
      // The workflow refused the update and goes on (a stale or missing preview, a decision already made).
      this.io.err.write(`refused: ${describeRoot(rootCause(err))}\n`);
      this.exitCode = EXIT.refused;
    }
  }

  failure(err: unknown, flags: { json?: boolean }): number {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const root = rootCause(err);
    const code = failureExit(root);
    if (flags.json) this.print(JSON.stringify({ failed: true, ...root }, null, 2));
    else {
      this.io.err.write(`${code === EXIT.cancelled ? 'cancelled' : 'failed'}: ${describeRoot(root)}\n`);
      if (root.type === 'QualityGateFailed' && root.details?.[0])
        this.print(formatPipeline(root.details[0] as DataQualityPipelineResult));
    }
    return code;
  }
}

/** What every command group receives: the Starter of this invocation, and the wrapper that closes and exits. */
export interface CommandContext {
  starter: () => Starter;
  action: <A extends unknown[]>(fn: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;
}
