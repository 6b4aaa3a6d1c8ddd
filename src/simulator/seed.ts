/**
 * Seed data: the project the simulator starts with. Users model their own in a JSON file of this shape
 * (`npm run simulator -- --seed my-project.json`; `--print-seed` prints the default one).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const OverrideKind = z.enum(['order_schedule', 'infrastructure', 'source_data_date', 'alert_destination']);
export type OverrideKind = z.infer<typeof OverrideKind>;

export const Role = z.enum(['admin', 'operator', 'viewer']);
export type Role = z.infer<typeof Role>;

export const Outcome = z.enum(['passed', 'failed', 'warning', 'error', 'log', 'dismissed']);
export type Outcome = z.infer<typeof Outcome>;

const SeedUser = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  /** admin: everything; operator: run orders and jobs, import; viewer: read only. */
  role: Role,
  /** Kitchens the user may run orders in. */
  kitchens: z.array(z.string()),
  /** Project codes whose table groups and test suites the user can see. */
  projects: z.array(z.string()),
});

const SeedVariation = z.object({
  name: z.string().min(1),
  /** The order run ends in SERVING_ERROR instead of COMPLETED_SERVING. */
  fails: z.boolean().default(false),
});

const SeedKitchen = z.object({
  name: z.string().min(1),
  /** Variables that runtime overrides may set, each with the kind of override it is. */
  variables: z.record(z.string(), OverrideKind),
  recipes: z.array(z.object({ name: z.string().min(1), variations: z.array(SeedVariation).min(1) })),
});

const IssueCounts = z.object({
  definite: z.number().int().nonnegative().default(0),
  likely: z.number().int().nonnegative().default(0),
  possible: z.number().int().nonnegative().default(0),
});

const SeedTable = z.object({
  name: z.string().min(1),
  columns: z.array(z.string().min(1)).min(1),
  record_ct: z.number().int().nonnegative(),
  hygiene: IssueCounts.default({ definite: 0, likely: 0, possible: 0 }),
  pii: z
    .object({ high: z.number().int().nonnegative().default(0), moderate: z.number().int().nonnegative().default(0) })
    .default({ high: 0, moderate: 0 }),
  dismissed: z.number().int().nonnegative().default(0),
});

const GeneratedTest = z.object({
  test_type: z.string(),
  table_name: z.string(),
  column_name: z.string(),
  threshold_value: z.string(),
});

/** A connection as TestGen 5.134 shows it: its type and the settings that reach its data source (no credentials). */
const SeedConnection = z.object({
  id: z.number().int().positive(),
  name: z.string().min(1),
  project_code: z.string(),
  /** TestGen's label: `PostgreSQL`, `Snowflake`, `Google BigQuery`, … */
  type: z.string().min(1),
  settings: z.record(z.string(), z.string()).default({}),
});

/** The connection a seed's table groups use when they name none: the demo's PostgreSQL warehouse. */
export const DEFAULT_CONNECTION = {
  id: 1,
  name: 'warehouse',
  project_code: 'DEMO',
  type: 'PostgreSQL',
  settings: { host: 'warehouse.demo.internal', port: '5432', database: 'demo', username: 'profiler' },
};

const SeedTableGroup = z.object({
  id: z.uuid(),
  name: z.string(),
  project_code: z.string(),
  schema_name: z.string(),
  /** The connection its tables are read through. */
  connection_id: z.number().int().positive().default(DEFAULT_CONNECTION.id),
  tables: z.array(SeedTable),
  /** When set, a completed profiling run enqueues a `run-test-generation` job for this suite. */
  auto_generate_suite_id: z.uuid().optional(),
  /** The auto-generated definitions that generation writes (never over a locked one). */
  generated_tests: z.array(GeneratedTest).default([]),
});

/** A test definition as seeded: the export fields, loose, so any deployment's fields can be modelled. */
const SeedDefinition = z.looseObject({
  test_type: z.string(),
  table_name: z.string(),
  column_name: z.string(),
});

const SeedSuite = z.object({
  id: z.uuid(),
  name: z.string(),
  project_code: z.string(),
  table_group_id: z.uuid(),
  definitions: z.array(SeedDefinition),
  /** Outcome of a test run per definition, keyed `table.column:test_type`; unlisted active definitions pass. */
  outcomes: z.record(z.string(), Outcome).default({}),
});

export const Seed = z.object({
  test_types: z.array(z.string().min(1)).min(1),
  /** Test types that exist but cannot be imported as new definitions (TestGen's non-public types, e.g. monitors). */
  managed_test_types: z.array(z.string().min(1)).default([]),
  /** Fields a definition of a test type must carry (in the file or on its target), else missing_required_field. */
  required_fields: z.record(z.string(), z.array(z.string().min(1))).default({}),
  users: z.array(SeedUser).min(1),
  kitchens: z.array(SeedKitchen),
  connections: z.array(SeedConnection).default([DEFAULT_CONNECTION]),
  table_groups: z.array(SeedTableGroup),
  test_suites: z.array(SeedSuite),
});
export type Seed = z.infer<typeof Seed>;
export type SeedInput = z.input<typeof Seed>;
export type SeedTableGroup = z.infer<typeof SeedTableGroup>;
export type SeedKitchen = z.infer<typeof SeedKitchen>;

/** Parses seed data, naming every problem with its path. */
export function parseSeed(input: unknown, source = 'seed'): Seed {
  const parsed = Seed.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
    throw new Error(`invalid ${source}:\n${problems}`);
  }
  const seed = parsed.data;
  const groups = new Set(seed.table_groups.map((g) => g.id));
  const problems: string[] = [];
  seed.test_suites.forEach((s, i) => {
    if (!groups.has(s.table_group_id))
      problems.push(`  test_suites.${i}.table_group_id: unknown table group ${s.table_group_id}`);
  });
  seed.table_groups.forEach((g, i) => {
    if (!seed.connections.some((c) => c.id === g.connection_id))
      problems.push(`  table_groups.${i}.connection_id: unknown connection ${g.connection_id}`);
    if (g.auto_generate_suite_id && !seed.test_suites.some((s) => s.id === g.auto_generate_suite_id))
      problems.push(`  table_groups.${i}.auto_generate_suite_id: unknown test suite ${g.auto_generate_suite_id}`);
  });
  if (problems.length) throw new Error(`invalid ${source}:\n${problems.join('\n')}`);
  return seed;
}

export function loadSeedFile(path: string): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read seed file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return parseSeed(raw, `seed file ${path}`);
}
