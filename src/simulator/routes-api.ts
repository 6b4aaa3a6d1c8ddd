/**
 * The `/api/v1` routes (registered under the API's prefix): health, job submission, status, cancel and listing,
 * run summaries, a run's columns and results, table groups and connections, and the export and import of test
 * definitions.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authRequest, requireProject, requireWriter } from './auth.js';
import type { SimContext, SimUser } from './context.js';
import { Origin, exportDefinitions, importDefinitions, parseImportRequest, type SuiteRef } from './definitions.js';
import { apiError, invalid, notFound, unprocessable } from './errors.js';
import { requestIdOf } from './http.js';
import { cancelJob, submitJob } from './jobs.js';
import type { JobRecord } from './state.js';
import {
  jobView,
  profilingColumns,
  profilingHistoryItem,
  profilingView,
  testRunResults,
  testRunView,
} from './views.js';

type IdParams = { Params: { id: string } };
const UUID = z.uuid();

const ListQuery = z.object({
  job_key: z.string().optional(),
  status: z.string().optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** The optional test-run body of TestGen 5.134. */
const TestRunBody = z.object({
  match_schema_name: z.string().nullish(),
  external_url: z.string().max(2048).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

const ExportQuery = z.object({
  origin: Origin.optional(),
  table_name: z.string().optional(),
  test_type: z.string().optional(),
});

function uuidParam(name: string, value: string): string {
  if (!UUID.safeParse(value).success)
    throw unprocessable([{ loc: ['path', name], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
  return value;
}

function requireJson(req: FastifyRequest): void {
  const type = req.headers['content-type'];
  if (!(type ?? '').startsWith('application/json'))
    throw apiError(415, 'unsupported_media_type', `expected application/json, got ${type ?? '(none)'}`);
}

export async function apiRoutes(app: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  const auth = (req: FastifyRequest) => authRequest(ctx, req, 'api');
  const findGroup = (user: SimUser, id: string) => {
    const group = ctx.groups.get(uuidParam('table_group_id', id));
    if (!group) throw notFound(`table group ${id}`);
    requireProject(user, group.project_code, `table group ${id}`);
    return group;
  };
  const findSuite = (user: SimUser, id: string): SuiteRef => {
    const suite = ctx.seed.test_suites.find((s) => s.id === uuidParam('test_suite_id', id));
    if (!suite) throw notFound(`test suite ${id}`);
    requireProject(user, suite.project_code, `test suite ${id}`);
    return suite;
  };
  const findJob = (user: SimUser, id: string) => {
    const job = ctx.state.jobs[uuidParam('job_id', id)];
    if (!job) throw notFound(`job ${id}`);
    requireProject(user, job.project_code, `job ${id}`);
    return job;
  };
  /** The jobs that `keep` accepts, newest first. */
  const newestFirst = (keep: (job: JobRecord) => boolean) =>
    [...ctx.state.job_order]
      .reverse()
      .map((id) => ctx.state.jobs[id])
      .filter((j): j is JobRecord => j !== undefined && keep(j));
  /** One page of a listing, in the service's page shape. */
  const onePage = <T>(all: JobRecord[], q: { page: number; limit: number }, view: (job: JobRecord) => T) => ({
    items: all.slice((q.page - 1) * q.limit, q.page * q.limit).map(view),
    page: q.page,
    limit: q.limit,
    total: all.length,
  });
  /** A job as this request sees it: an `unknown_status` fault replaces its status. */
  const shown = (req: FastifyRequest, job: JobRecord) =>
    jobView(ctx, job, req.simFault?.kind === 'unknown_status' ? req.simFault.unknown_status : undefined);

  // TestGen 5.134's shape; a pip install reports no version.
  app.get('/health', async () => ({ status: 'ok', edition: 'simulator', version: null }));

  /** Submits a job through the API for the request's user; answers 202 with its id. */
  const submit = (
    req: FastifyRequest,
    user: SimUser,
    job_key: 'run-profile' | 'run-tests' | 'run-test-generation',
    target: { project_code: string; table_group_id: string; test_suite_id: string | null },
    link: { external_url?: string | null | undefined; metadata?: Record<string, unknown> | null | undefined } = {},
  ) => {
    requireWriter(user, `submit ${job_key} jobs`);
    const job = submitJob(ctx, {
      job_key,
      source: 'api',
      ...target,
      created_by: user.username,
      request_id: requestIdOf(req),
      external_url: link.external_url ?? null,
      caller_metadata: link.metadata ?? null,
    });
    return { id: job.id, created_at: ctx.clock.iso(job.created_at) };
  };

  // A table group as TestGen 5.134 describes it: its default suite is where profiling's follow-up generation goes.
  app.get<IdParams>('/table-groups/:id', async (req) => {
    const group = findGroup(auth(req), req.params.id);
    return {
      table_group_id: group.id,
      table_group_name: group.name,
      project_code: group.project_code,
      connection_id: group.connection_id,
      schema_name: group.schema_name,
      default_test_suite_id: group.auto_generate_suite_id ?? null,
    };
  });

  // A connection as TestGen 5.134 shows it: its type and settings, never a credential. Ids are integers there.
  app.get<IdParams>('/connections/:id', async (req) => {
    const user = auth(req);
    const c = ctx.seed.connections.find((x) => String(x.id) === req.params.id);
    if (!c) throw notFound(`connection ${req.params.id}`);
    requireProject(user, c.project_code, `connection ${req.params.id}`);
    const { id, name, project_code, type, settings } = c;
    return { connection_id: id, connection_name: name, project_code, connection_type: type, settings };
  });

  // What a completed run found, a page at a time (TestGen 5.134): a profiling run's columns, a test run's results.
  const pageOf = <T>(items: T[], query: unknown) => {
    const q = ListQuery.pick({ page: true, limit: true }).safeParse(query);
    if (!q.success) throw invalid(q.error, 'query');
    const { page, limit } = q.data;
    return { items: items.slice((page - 1) * limit, page * limit), page, limit, total: items.length };
  };
  app.get<IdParams>('/profiling-runs/:id/columns', async (req) => {
    const job = findJob(auth(req), req.params.id);
    if (job.job_key !== 'run-profile') throw notFound(`profiling run ${req.params.id}`);
    return pageOf(profilingColumns(ctx, job), req.query);
  });
  app.get<IdParams>('/test-runs/:id/results', async (req) => {
    const job = findJob(auth(req), req.params.id);
    if (job.job_key !== 'run-tests') throw notFound(`test run ${req.params.id}`);
    return pageOf(testRunResults(ctx, job), req.query);
  });

  // TestGen 5.134's profiling history of a table group, newest first (`?status=completed&limit=1` for the latest).
  app.get<IdParams & { Querystring: Record<string, string> }>('/table-groups/:id/profiling-runs', async (req) => {
    const group = findGroup(auth(req), req.params.id);
    const q = ListQuery.omit({ job_key: true }).safeParse(req.query);
    if (!q.success) throw invalid(q.error, 'query');
    const { status } = q.data;
    const runs = newestFirst(
      (j) => j.job_key === 'run-profile' && j.table_group_id === group.id && (!status || j.status === status),
    );
    return onePage(runs, q.data, (j) => profilingHistoryItem(ctx, j));
  });

  app.post<IdParams>('/table-groups/:id/profiling-runs', async (req, reply) => {
    const user = auth(req);
    const group = findGroup(user, req.params.id);
    const target = { project_code: group.project_code, table_group_id: group.id, test_suite_id: null };
    return reply.status(202).send(submit(req, user, 'run-profile', target));
  });

  app.post<IdParams>('/test-suites/:id/test-runs', async (req, reply) => {
    const user = auth(req);
    const { project_code, table_group_id, id } = findSuite(user, req.params.id);
    const body = TestRunBody.safeParse(req.body ?? {});
    if (!body.success) throw invalid(body.error, 'body');
    return reply
      .status(202)
      .send(submit(req, user, 'run-tests', { project_code, table_group_id, test_suite_id: id }, body.data));
  });

  app.post<IdParams>('/test-suites/:id/test-generation', async (req, reply) => {
    const user = auth(req);
    const { project_code, table_group_id, id } = findSuite(user, req.params.id);
    return reply
      .status(202)
      .send(submit(req, user, 'run-test-generation', { project_code, table_group_id, test_suite_id: id }));
  });

  app.get<IdParams>('/jobs/:id', async (req) => shown(req, findJob(auth(req), req.params.id)));

  app.post<IdParams>('/jobs/:id/cancel', async (req) => {
    const user = auth(req);
    const job = findJob(user, req.params.id);
    requireWriter(user, 'cancel jobs');
    return shown(req, cancelJob(ctx, job));
  });

  app.get<{ Params: { code: string }; Querystring: Record<string, string> }>('/projects/:code/jobs', async (req) => {
    const user = auth(req);
    requireProject(user, req.params.code, `project ${req.params.code}`);
    const q = ListQuery.safeParse(req.query);
    if (!q.success) throw invalid(q.error, 'query');
    const { job_key, status } = q.data;
    const all = newestFirst(
      (j) =>
        j.project_code === req.params.code && (!job_key || j.job_key === job_key) && (!status || j.status === status),
    );
    return onePage(all, q.data, (j) => jobView(ctx, j));
  });

  app.get<IdParams>('/test-runs/:id', async (req) => {
    const job = findJob(auth(req), req.params.id);
    if (job.job_key !== 'run-tests') throw notFound(`test run ${req.params.id}`);
    return testRunView(ctx, job);
  });

  app.get<IdParams>('/profiling-runs/:id', async (req) => {
    const job = findJob(auth(req), req.params.id);
    if (job.job_key !== 'run-profile') throw notFound(`profiling run ${req.params.id}`);
    return profilingView(ctx, job);
  });

  app.get<IdParams & { Querystring: Record<string, string> }>(
    '/test-suites/:id/test-definition-export',
    async (req) => {
      const suite = findSuite(auth(req), req.params.id);
      const q = ExportQuery.safeParse(req.query);
      if (!q.success) throw invalid(q.error, 'query');
      return exportDefinitions(ctx, suite, q.data);
    },
  );

  app.post<IdParams>('/test-suites/:id/test-definition-import', async (req) => {
    const user = auth(req);
    const suite = findSuite(user, req.params.id);
    requireJson(req);
    return importDefinitions(ctx, user, suite, parseImportRequest(req.body));
  });
}
