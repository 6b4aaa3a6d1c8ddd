/**
 * Export and import of test definitions (spec sections 2.5-2.7 and 4.6), with the deployed field names:
 * a definition is auto-generated when `last_auto_gen_date` is set, and `lock_refresh` is its lock.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SimContext, SimUser } from './context.js';
import { SimError, apiError, forbidden, invalid } from './errors.js';
import type { DefinitionRecord } from './state.js';

/** Fields that never appear in a file: they belong to the target. */
const INTERNAL = new Set(['id', 'test_suite_id', 'schema_name']);
/** Fields an update never changes. */
const IMMUTABLE = new Set(['test_type', 'last_auto_gen_date', 'external_id']);
/** Default values, omitted from the compact export. */
const DEFAULTS: Record<string, unknown> = {
  test_active: true,
  lock_refresh: false,
  export_to_observability: false,
  skip_errors: 0,
};

export const Origin = z.enum(['manual', 'auto', 'both']);
export interface ExportFilters {
  origin?: 'manual' | 'auto' | 'both';
  table_name?: string;
  test_type?: string;
}

export const isAuto = (d: Record<string, unknown>): boolean =>
  d.last_auto_gen_date !== undefined && d.last_auto_gen_date !== null && d.last_auto_gen_date !== '';
const naturalKey = (d: Record<string, unknown>) =>
  JSON.stringify([String(d.test_type), String(d.table_name), String(d.column_name)]);

function compact(d: DefinitionRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (INTERNAL.has(k) || v === null || v === undefined) continue;
    if (k in DEFAULTS && DEFAULTS[k] === v) continue;
    out[k] = v;
  }
  return out;
}

export interface SuiteRef {
  id: string;
  name: string;
  project_code: string;
  table_group_id: string;
}

export function exportDefinitions(ctx: SimContext, suite: SuiteRef, filters: ExportFilters): Record<string, unknown> {
  const origin = filters.origin ?? 'both';
  const selected = (ctx.state.definitions[suite.id] ?? []).filter(
    (d) =>
      (origin === 'both' || (origin === 'auto') === isAuto(d)) &&
      (filters.table_name === undefined || d.table_name === filters.table_name) &&
      (filters.test_type === undefined || d.test_type === filters.test_type),
  );
  for (const d of selected) {
    // A manual definition gets its identity when it is first exported.
    if (!isAuto(d) && (typeof d.external_id !== 'string' || d.external_id === '')) d.external_id = randomUUID();
  }
  const file: Record<string, unknown> = {
    version: 1,
    source: {
      project_code: suite.project_code,
      test_suite: suite.name,
      test_suite_id: suite.id,
      table_group: ctx.groups.get(suite.table_group_id)?.name ?? null,
      exported_at: ctx.clock.iso(),
    },
    definitions: selected.map(compact),
  };
  if (ctx.variants.omitExportVersion) delete file.version;
  return file;
}

export const ImportRequest = z.object({
  config: z.object({
    mode: z.enum(['preview', 'apply', 'apply_strict']),
    on_match: z.enum(['overwrite_all', 'overwrite_unlocked', 'skip']),
    on_new: z.enum(['create', 'create_and_lock', 'skip']),
    on_absence: z.enum(['do_nothing', 'delete_all', 'delete_unlocked']),
  }),
  payload: z.object({
    version: z.number().int().optional(),
    source: z.unknown().optional(),
    definitions: z.array(
      z.looseObject({
        test_type: z.string(),
        table_name: z.string().optional(),
        column_name: z.string().optional(),
        external_id: z.string().nullish(),
      }),
    ),
  }),
});
export type ImportRequest = z.infer<typeof ImportRequest>;

export type Action = 'create' | 'update' | 'skip' | 'delete';
export type Reason =
  | 'no_match'
  | 'matched'
  | 'policy'
  | 'locked'
  | 'invalid_test_type'
  | 'managed_test_type'
  | 'invalid_table'
  | 'invalid_column'
  | 'missing_external_id'
  | 'missing_required_field'
  | 'absent';

/** The order items are grouped in: the order of the spec's reference table. */
export const GROUP_ORDER: [Action, Reason][] = [
  ['create', 'no_match'],
  ['update', 'matched'],
  ['skip', 'policy'],
  ['skip', 'locked'],
  ['skip', 'no_match'],
  ['skip', 'invalid_test_type'],
  ['skip', 'managed_test_type'],
  ['skip', 'invalid_table'],
  ['skip', 'invalid_column'],
  ['skip', 'missing_external_id'],
  ['skip', 'missing_required_field'],
  ['delete', 'absent'],
];

interface Decision {
  action: Action;
  reason: Reason;
  idx: number | null;
  target: DefinitionRecord | null;
  def?: Record<string, unknown>;
}

export interface ImportResult {
  summary: { created: number; updated: number; skipped: number; deleted: number };
  items: { action: Action; reason: Reason; tds: { idx: number | null; target_id: string | null }[] }[];
}

export function parseImportRequest(body: unknown): ImportRequest {
  const parsed = ImportRequest.safeParse(body);
  if (!parsed.success) throw invalid(parsed.error, 'body');
  return parsed.data;
}

export function importDefinitions(
  ctx: SimContext,
  user: SimUser,
  suite: SuiteRef,
  request: ImportRequest,
): ImportResult {
  const { config, payload } = request;
  if (config.mode !== 'preview' && user.role === 'viewer') throw forbidden(`role 'viewer' may not apply an import`);
  const version = payload.version ?? 1;
  if (version !== 1) throw apiError(400, 'unsupported_version', `export file version ${version} is not supported`);

  const seen = new Map<string, number>();
  payload.definitions.forEach((d, i) => {
    if (!isAuto(d)) return;
    const key = naturalKey(d);
    const first = seen.get(key);
    if (first !== undefined)
      throw apiError(
        400,
        'duplicate_natural_key',
        `definitions ${first} and ${i} are both auto-generated ${d.test_type} tests of ${d.table_name}.${d.column_name}`,
      );
    seen.set(key, i);
  });

  const group = ctx.groups.get(suite.table_group_id);
  const columnsOf = new Map(group?.tables.map((t) => [t.name, new Set(t.columns)]) ?? []);
  const testTypes = new Set(ctx.seed.test_types);
  const managed = new Set(ctx.seed.managed_test_types);
  const targets = ctx.state.definitions[suite.id] ?? [];
  const byKey = new Map<string, DefinitionRecord>();
  const byExternalId = new Map<string, DefinitionRecord>();
  for (const t of targets) {
    if (isAuto(t)) byKey.set(naturalKey(t), t);
    if (typeof t.external_id === 'string' && t.external_id) byExternalId.set(t.external_id, t);
  }

  const decisions: Decision[] = [];
  const matched = new Set<string>();
  payload.definitions.forEach((def, idx) => {
    const auto = isAuto(def);
    // As TestGen 5.134: match first, so that a definition skipped as invalid still protects its target from an
    // absence delete; then validate, with values absent from the file read from the target.
    const match = auto ? byKey.get(naturalKey(def)) : def.external_id ? byExternalId.get(def.external_id) : undefined;
    if (match) matched.add(match.id);
    const skip = (reason: Reason) => decisions.push({ action: 'skip', reason, idx, target: match ?? null, def });
    const saved = (field: string) => def[field] ?? match?.[field];
    if (!auto && !def.external_id) return skip('missing_external_id');
    if (!testTypes.has(def.test_type)) return skip('invalid_test_type');
    if (!match && managed.has(def.test_type)) return skip('managed_test_type');
    const table = saved('table_name');
    const column = saved('column_name');
    const columns = typeof table === 'string' ? columnsOf.get(table) : undefined;
    if (table !== undefined && !columns) return skip('invalid_table');
    if (typeof column === 'string' && columns && !columns.has(column)) return skip('invalid_column');
    if ((ctx.seed.required_fields[def.test_type] ?? []).some((f) => saved(f) === undefined || saved(f) === null))
      return skip('missing_required_field');
    if (match) {
      if (config.on_match === 'skip') return skip('policy');
      if (config.on_match === 'overwrite_unlocked' && match.lock_refresh === true) return skip('locked');
      return decisions.push({ action: 'update', reason: 'matched', idx, target: match, def });
    }
    if (config.on_new === 'skip') return skip('no_match');
    decisions.push({ action: 'create', reason: 'no_match', idx, target: null, def });
  });
  if (config.on_absence !== 'do_nothing') {
    for (const t of targets) {
      if (matched.has(t.id)) continue;
      if (config.on_absence === 'delete_unlocked' && t.lock_refresh === true) continue;
      decisions.push({ action: 'delete', reason: 'absent', idx: null, target: t });
    }
  }

  const count = (a: Action) => decisions.filter((d) => d.action === a).length;
  const summary = {
    created: count('create'),
    updated: count('update'),
    skipped: count('skip'),
    deleted: count('delete'),
  };

  if (config.mode === 'apply_strict' && summary.skipped > 0) {
    const result = buildResult(summary, decisions);
    const message = `${summary.skipped} definition(s) would be skipped; nothing was applied`;
    const errors = [{ code: 'strict_validation_failed', message, detail: message }];
    const body =
      ctx.variants.strictErrorShape === 'nested'
        ? { detail: { errors, import_result: result } }
        : { errors, import_result: result };
    throw new SimError(400, body);
  }

  if (config.mode !== 'preview') {
    const deleted = new Set<string>();
    for (const d of decisions) {
      if (d.action === 'update' && d.target && d.def) {
        for (const [k, v] of Object.entries(d.def)) {
          if (!INTERNAL.has(k) && !IMMUTABLE.has(k)) d.target[k] = v;
        }
      } else if (d.action === 'create' && d.def) {
        const fields = Object.fromEntries(Object.entries(d.def).filter(([k]) => !INTERNAL.has(k)));
        const created: DefinitionRecord = {
          ...fields,
          test_type: String(d.def.test_type),
          table_name: String(d.def.table_name),
          column_name: String(d.def.column_name),
          id: randomUUID(),
          test_suite_id: suite.id,
          schema_name: group?.schema_name ?? '', // never from the file
        };
        if (config.on_new === 'create_and_lock' && isAuto(created)) created.lock_refresh = true;
        targets.push(created);
        d.target = created;
      } else if (d.action === 'delete' && d.target) {
        deleted.add(d.target.id);
      }
    }
    ctx.state.definitions[suite.id] = targets.filter((t) => !deleted.has(t.id));
  }
  return buildResult(summary, decisions);
}

function buildResult(summary: ImportResult['summary'], decisions: Decision[]): ImportResult {
  const items: ImportResult['items'] = [];
  for (const [action, reason] of GROUP_ORDER) {
    const tds = decisions
      .filter((d) => d.action === action && d.reason === reason)
      .map((d) => ({ idx: d.idx, target_id: d.target?.id ?? null }));
    if (tds.length) items.push({ action, reason, tds });
  }
  return { summary, items };
}
