/**
 * What finished jobs produce: a profiling result from the seeded tables, a test-run result from the seeded outcomes,
 * and the definitions that test generation writes.
 */
import { randomUUID } from 'node:crypto';
import type { SimContext } from './context.js';
import type { Outcome } from './seed.js';
import type { DefinitionRecord, ProfilingResult, TestRunResult } from './state.js';

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Profiling result of a table group, derived from its seeded tables. Score: 100 × (1 − penalty / (4 × columns)),
 * penalty = 3·definite + 2·likely + 1·possible + 2·PII high + 1·PII moderate, rounded to one decimal, at least 0.
 */
export function profilingResult(ctx: SimContext, tableGroupId: string): ProfilingResult {
  const tables = ctx.groups.get(tableGroupId)?.tables ?? [];
  const sum = (f: (t: (typeof tables)[number]) => number) => tables.reduce((n, t) => n + f(t), 0);
  const hygiene = {
    definite: sum((t) => t.hygiene.definite),
    likely: sum((t) => t.hygiene.likely),
    possible: sum((t) => t.hygiene.possible),
  };
  const pii = { high: sum((t) => t.pii.high), moderate: sum((t) => t.pii.moderate) };
  const columnCt = sum((t) => t.columns.length);
  const penalty = 3 * hygiene.definite + 2 * hygiene.likely + hygiene.possible + 2 * pii.high + pii.moderate;
  return {
    score: columnCt === 0 ? 100 : Math.max(0, round1(100 * (1 - penalty / (4 * columnCt)))),
    table_ct: tables.length,
    column_ct: columnCt,
    record_ct: sum((t) => t.record_ct),
    issue_counts: { hygiene_issues: hygiene, potential_pii: pii, dismissed: sum((t) => t.dismissed) },
  };
}

export function outcomeKey(d: Pick<DefinitionRecord, 'table_name' | 'column_name' | 'test_type'>): string {
  return `${d.table_name}.${d.column_name}:${d.test_type}`;
}

/**
 * Test-run result of a suite: one outcome per active definition (seeded `outcomes`, else passed).
 * Score: 100 × (passed + ½·warning) / (passed + failed + warning + error), rounded to one decimal; 100 when empty.
 */
export function testRunResult(ctx: SimContext, suiteId: string): TestRunResult {
  const outcomes = ctx.seed.test_suites.find((s) => s.id === suiteId)?.outcomes ?? {};
  const counts: Record<Outcome, number> = { passed: 0, failed: 0, warning: 0, error: 0, log: 0, dismissed: 0 };
  for (const d of ctx.state.definitions[suiteId] ?? []) {
    if (d.test_active === false) continue;
    counts[outcomes[outcomeKey(d)] ?? 'passed']++;
  }
  const scored = counts.passed + counts.failed + counts.warning + counts.error;
  return {
    score: scored === 0 ? 100 : round1((100 * (counts.passed + counts.warning / 2)) / scored),
    result_counts: counts,
  };
}

/** The follow-up generation job: creates or refreshes auto-generated definitions, never a locked one. */
export function generateTests(ctx: SimContext, tableGroupId: string, suiteId: string, at: number): void {
  const group = ctx.groups.get(tableGroupId);
  const defs = (ctx.state.definitions[suiteId] ??= []);
  for (const g of group?.generated_tests ?? []) {
    const existing = defs.find((d) => d.last_auto_gen_date && outcomeKey(d) === outcomeKey(g));
    if (existing?.lock_refresh === true) continue;
    if (existing) {
      existing.threshold_value = g.threshold_value;
      existing.last_auto_gen_date = new Date(at).toISOString();
    } else {
      defs.push({
        ...g,
        id: randomUUID(),
        test_suite_id: suiteId,
        schema_name: group?.schema_name ?? '',
        last_auto_gen_date: new Date(at).toISOString(),
      });
    }
  }
}
