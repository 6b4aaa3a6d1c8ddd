/**
 * The calls of the service, grouped as the domain reads: orders, profiling runs, test runs, jobs and test
 * definitions. Each builds one request (path segments URL-encoded) and names the schema of its answer; sending,
 * authentication and error mapping belong to the client.
 */
import type { Method } from 'got';
import type { z } from 'zod';
import type { Surface } from './bearer.js';
import { UnexpectedResponse } from './errors.js';
import type { ServicePaths } from './options.js';
import {
  ExportFile,
  ExportFilters,
  ImportConfig,
  ImportResult,
  Job,
  JobList,
  JobSubmission,
  OrderCreated,
  OrderListing,
  ProfilingColumnPage,
  ProfilingRunPage,
  TableGroup,
  Connection,
  OrderRuns,
  ProfilingSummary,
  TestResultPage,
  TestRunSummary,
  type ExportFileInput,
  type OrderRun,
} from './schemas.js';

export interface CallOptions {
  /** Aborts the request in flight. */
  signal?: AbortSignal;
  /** A write's own id, sent as `X-Request-Id` (the service's logs then name the workflow request behind it). */
  requestId?: string;
  /** A write that must not leave after this time (epoch ms): later, it is not sent (NotSentInTime). */
  leaveBy?: number;
}

export interface ApiRequest {
  method: Method;
  surface: Surface;
  path: string;
  json?: unknown;
  searchParams?: Record<string, string | number | undefined>;
  signal?: AbortSignal | undefined;
  /** Sent as `X-Request-Id`. */
  requestId?: string | undefined;
  /** Not sent after this time (epoch ms). */
  leaveBy?: number | undefined;
  /** Send without a bearer (health). @default false */
  anonymous?: boolean;
  /** Which statuses count as success. @default 2xx */
  ok?: (status: number) => boolean;
}

/** What the resources need from the client. */
export interface Caller {
  /** Sends, maps error statuses, and parses the body with `schema`. */
  call<T extends z.ZodType>(schema: T, req: ApiRequest): Promise<z.infer<T>>;
  /** Sends and maps error statuses; the body is not read. */
  raw(req: ApiRequest): Promise<unknown>;
  readonly paths: ServicePaths;
}

const seg = (s: string) => encodeURIComponent(s);

export function ordersResource(c: Caller) {
  return {
    /** Runs an order: recipe and variation in a kitchen, with optional runtime overrides. */
    create: async (
      order: {
        kitchen: string;
        recipe: string;
        variation: string;
        parameters?: Record<string, unknown>;
        schedule?: string;
      },
      opts: CallOptions = {},
    ): Promise<OrderCreated> =>
      c.call(OrderCreated, {
        method: 'PUT',
        surface: 'v2',
        path: `/v2/order/create/${seg(order.kitchen)}/${seg(order.recipe)}/${seg(order.variation)}`,
        json: { parameters: order.parameters ?? {}, schedule: order.schedule ?? 'now' },
        signal: opts.signal,
        requestId: opts.requestId,
        leaveBy: opts.leaveBy,
      }),
    /** Recent orders of a recipe and variation in a kitchen (the listing that finds an order whose answer was lost). */
    list: async (
      kitchen: string,
      filter: { recipe: string; variation: string; timePeriodHours: number },
      opts: CallOptions = {},
    ): Promise<OrderListing> =>
      c.call(OrderListing, {
        method: 'GET',
        surface: 'v2',
        path: `/v2/order/status/${seg(kitchen)}`,
        searchParams: { recipe: filter.recipe, variation: filter.variation, timePeriod: filter.timePeriodHours },
        signal: opts.signal,
      }),
    /** The order runs ("servings") of an order. */
    runs: async (kitchen: string, orderId: string, opts: CallOptions = {}): Promise<OrderRun[]> =>
      (
        await c.call(OrderRuns, {
          method: 'GET',
          surface: 'v2',
          path: `/v2/order/servings/${seg(kitchen)}/${seg(orderId)}`,
          signal: opts.signal,
        })
      ).servings,
    /** The status of one order run. */
    runStatus: async (kitchen: string, orderRunId: string, opts: CallOptions = {}): Promise<OrderRun> => {
      const path = `/v2/order/details/${seg(kitchen)}`;
      const res = await c.call(OrderRuns, {
        method: 'POST',
        surface: 'v2',
        path,
        json: { serving_hid: orderRunId, summary: true },
        signal: opts.signal,
      });
      const run = res.servings[0];
      if (!run)
        throw new UnexpectedResponse(`POST ${path}: servings is empty`, { method: 'POST', url: path }, [
          { path: 'servings', message: 'expected at least one order run' },
        ]);
      return run;
    },
    stop: async (orderId: string, opts: CallOptions = {}): Promise<void> => {
      await c.raw({ method: 'PUT', surface: 'v2', path: `/v2/order/stop/${seg(orderId)}`, signal: opts.signal });
    },
    stopRun: async (orderRunId: string, opts: CallOptions = {}): Promise<void> => {
      await c.raw({ method: 'PUT', surface: 'v2', path: `/v2/serving/stop/${seg(orderRunId)}`, signal: opts.signal });
    },
  };
}

/** Submit and summary of one kind of job: profiling runs of a table group, or test runs of a test suite. */
function jobKindResource<S extends z.ZodType>(
  c: Caller,
  submitPath: (targetId: string) => string,
  summaryPath: string,
  summary: S,
) {
  return {
    /** Submits the job; returns at once with its id (202). */
    submit: async (targetId: string, opts: CallOptions = {}): Promise<JobSubmission> =>
      c.call(JobSubmission, {
        method: 'POST',
        surface: 'api',
        path: submitPath(seg(targetId)),
        signal: opts.signal,
        requestId: opts.requestId,
        leaveBy: opts.leaveBy,
      }),
    /** The result summary, fetched once the job has completed. */
    summary: async (jobId: string, opts: CallOptions = {}): Promise<z.infer<S>> =>
      c.call(summary, { method: 'GET', surface: 'api', path: `${summaryPath}/${seg(jobId)}`, signal: opts.signal }),
  };
}

export const profilingRunsResource = (c: Caller) => ({
  ...jobKindResource(
    c,
    (id) => `/api/v1/table-groups/${id}/profiling-runs`,
    '/api/v1/profiling-runs',
    ProfilingSummary,
  ),
  /** A page of the run's column profiles, table by table, where the deployment lists them (TestGen 5.134). */
  columns: async (jobId: string, page: number, limit: number, opts: CallOptions = {}): Promise<ProfilingColumnPage> =>
    c.call(ProfilingColumnPage, {
      method: 'GET',
      surface: 'api',
      path: `/api/v1/profiling-runs/${seg(jobId)}/columns`,
      searchParams: { page, limit, sort: 'table' },
      signal: opts.signal,
    }),
});

/** What a test run may carry back to its caller (TestGen 5.134 echoes both in the run's summary). */
export interface TestRunLink {
  /** A link to whatever started the run, e.g. the workflow in the Temporal Web UI. */
  externalUrl?: string;
  /** Free-form JSON, e.g. the workflow and run ids. */
  metadata?: Record<string, unknown>;
}

export function testRunsResource(c: Caller) {
  const kind = jobKindResource(c, (id) => `/api/v1/test-suites/${id}/test-runs`, '/api/v1/test-runs', TestRunSummary);
  return {
    ...kind,
    /** Submits a test run of a test suite, with an optional link back to its caller; returns at once (202). */
    submit: async (testSuiteId: string, opts: CallOptions & TestRunLink = {}): Promise<JobSubmission> => {
      const body = {
        ...(opts.externalUrl ? { external_url: opts.externalUrl } : {}),
        ...(opts.metadata ? { metadata: opts.metadata } : {}),
      };
      return c.call(JobSubmission, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-runs`,
        ...(Object.keys(body).length ? { json: body } : {}),
        signal: opts.signal,
        requestId: opts.requestId,
        leaveBy: opts.leaveBy,
      });
    },
    /** A page of the run's per-test results, where the deployment lists them (TestGen 5.134; not in the spec). */
    results: async (jobId: string, page: number, limit: number, opts: CallOptions = {}): Promise<TestResultPage> =>
      c.call(TestResultPage, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/test-runs/${seg(jobId)}/results`,
        searchParams: { page, limit },
        signal: opts.signal,
      }),
  };
}

export function tableGroupsResource(c: Caller) {
  return {
    /** A table group (TestGen 5.134; not every deployment serves it). */
    get: async (tableGroupId: string, opts: CallOptions = {}): Promise<TableGroup> =>
      c.call(TableGroup, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/table-groups/${seg(tableGroupId)}`,
        signal: opts.signal,
      }),
    /** How many completed profiling runs a table group has had (TestGen 5.134; not every deployment serves it). */
    completedProfilingRuns: async (tableGroupId: string, opts: CallOptions = {}): Promise<number> =>
      (
        await c.call(ProfilingRunPage, {
          method: 'GET',
          surface: 'api',
          path: `/api/v1/table-groups/${seg(tableGroupId)}/profiling-runs`,
          searchParams: { status: 'completed', limit: 1 },
          signal: opts.signal,
        })
      ).total,
  };
}

export function connectionsResource(c: Caller) {
  return {
    /** A connection: its type and where it reaches its data source, no credentials (TestGen 5.134; not every deployment serves it). */
    get: async (connectionId: string, opts: CallOptions = {}): Promise<Connection> =>
      c.call(Connection, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/connections/${seg(connectionId)}`,
        signal: opts.signal,
      }),
  };
}

export function testGenerationResource(c: Caller) {
  return {
    /** Starts test generation for a test suite (TestGen 5.134); returns at once with the job id (202). */
    submit: async (testSuiteId: string, opts: CallOptions = {}): Promise<JobSubmission> =>
      c.call(JobSubmission, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-generation`,
        signal: opts.signal,
        requestId: opts.requestId,
        leaveBy: opts.leaveBy,
      }),
  };
}

export function jobsResource(c: Caller) {
  const jobCall = (method: Method, template: string, jobId: string, opts: CallOptions) =>
    c.call(Job, { method, surface: 'api', path: template.replace('{job_id}', seg(jobId)), signal: opts.signal });
  return {
    /** The job's current status and lifecycle timestamps. */
    get: async (jobId: string, opts: CallOptions = {}): Promise<Job> => jobCall('GET', c.paths.jobStatus, jobId, opts),
    /** Requests cancellation. A job that is already terminal answers Conflict (409). */
    cancel: async (jobId: string, opts: CallOptions = {}): Promise<Job> =>
      jobCall('POST', c.paths.jobCancel, jobId, opts),
    list: async (
      projectCode: string,
      query: { job_key?: string; status?: string; page?: number; limit?: number } = {},
      opts: CallOptions = {},
    ): Promise<JobList> =>
      c.call(JobList, {
        method: 'GET',
        surface: 'api',
        path: c.paths.jobList.replace('{project_code}', seg(projectCode)),
        searchParams: query,
        signal: opts.signal,
      }),
  };
}

export function testDefinitionsResource(c: Caller) {
  return {
    export: async (testSuiteId: string, filters: ExportFilters = {}, opts: CallOptions = {}): Promise<ExportFile> =>
      c.call(ExportFile, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-definition-export`,
        searchParams: ExportFilters.parse(filters),
        signal: opts.signal,
      }),
    /** Imports an export file. A strict rejection throws StrictImportRejected with the import result. */
    import: async (
      testSuiteId: string,
      config: ImportConfig,
      payload: ExportFileInput,
      opts: CallOptions = {},
    ): Promise<ImportResult> =>
      c.call(ImportResult, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-definition-import`,
        json: { config: ImportConfig.parse(config), payload },
        signal: opts.signal,
        leaveBy: opts.leaveBy,
      }),
  };
}
