/**
 * The fault matrix's vocabulary: its cells (every fault kind of the simulator × every stage it can hit), the fault
 * each cell injects, the outcome each cell must end with, a seed with one table group and suite pair per cell, and
 * the ledger that counts what must never happen (duplicates, adopted jobs, orphans, leaks, wrong or false reports).
 */
import assert from 'node:assert/strict';
import { defaultSeed, SEED_IDS, type SeedInput } from '../../src/simulator/index.js';
import { FaultSpec, type FaultInput } from '../../src/simulator/faults.js';
import type { Outcome } from './ending.js';

/** Every fault kind the simulator has: a kind added there is in the matrix at once. */
export const KINDS = FaultSpec.shape.kind.options;
export type Kind = FaultSpec['kind'];

export const PIPELINE_STAGES = ['submit-profiling', 'poll', 'summary', 'submit-tests', 'cancel'] as const;
export const PROMOTION_STAGES = ['export', 'preview', 'apply'] as const;
export const ORDER_STAGES = ['order-create', 'order-status'] as const;
export type Stage =
  'login' | (typeof PIPELINE_STAGES)[number] | (typeof PROMOTION_STAGES)[number] | (typeof ORDER_STAGES)[number];

/** Longer than the worker's DATAOPS_TIMEOUT_MS in the matrix (1 s), well short of its settle time (5 s). */
export const HOLD_MS = 2_000;

/** The fault of one kind, one shot, on one request. */
export function faultOf(kind: Kind, stage: Stage, where: { method: string; path: string; skip?: number }): FaultInput {
  const base = { kind, method: where.method, path: where.path, count: 1, skip: where.skip ?? 0 };
  switch (kind) {
    case 'status':
      return { ...base, status: 503 };
    case 'rate_limit':
      return { ...base, retry_after: 1 };
    case 'delay':
      return { ...base, delay_ms: HOLD_MS };
    case 'respond':
      // At login a credentials answer; elsewhere a 200 whose body breaks its schema.
      return stage === 'login'
        ? { ...base, status: 401, body: { detail: 'invalid credentials' } }
        : { ...base, status: 200, body: { unexpected: true } };
    default:
      return base;
  }
}

export type { Outcome } from './ending.js';

/**
 * What a cell must end with. Every one-shot blip is survived. A schema break is not transient, so the workflow
 * fails (having cleaned up), except at a cancel, which keeps trying within its own budget; a credentials answer at
 * login fails.
 */
export function expectedOf(stage: Stage, kind: Kind): Outcome {
  if (stage === 'cancel') return 'cancelled';
  return kind === 'respond' ? 'failed' : 'ok';
}

const hex = (prefix: string, i: number) => `${prefix}-0000-4000-9000-${String(i).padStart(12, '0')}`;
/** The table group, source suite and target suite of cell `i`. */
export const cellIds = (i: number) => ({
  tableGroup: hex('a1000000', i),
  source: hex('b2000000', i),
  target: hex('b3000000', i),
});

/** The default seed plus `n` copies of the sales table group with its development and production suites. */
export function matrixSeed(n: number): SeedInput {
  const sales = defaultSeed.table_groups.find((g) => g.id === SEED_IDS.tableGroups.sales)!;
  const dev = defaultSeed.test_suites.find((s) => s.id === SEED_IDS.testSuites.salesDev)!;
  const prod = defaultSeed.test_suites.find((s) => s.id === SEED_IDS.testSuites.salesProd)!;
  const groups = [];
  const suites = [];
  for (let i = 0; i < n; i++) {
    const id = cellIds(i);
    const { auto_generate_suite_id: _auto, generated_tests: _generated, ...group } = sales;
    groups.push({ ...group, id: id.tableGroup, name: `mx-${i}` });
    suites.push({ ...dev, id: id.source, name: `mx-dev-${i}`, table_group_id: id.tableGroup });
    suites.push({ ...prod, id: id.target, name: `mx-prod-${i}`, table_group_id: id.tableGroup });
  }
  return {
    ...defaultSeed,
    table_groups: [...defaultSeed.table_groups, ...groups],
    test_suites: [...defaultSeed.test_suites, ...suites],
  };
}

/** What never may happen, counted over the whole run; `notes` says where. */
export class Ledger {
  cells = 0;
  duplicates = 0;
  adopted = 0;
  orphans = 0;
  leaks = 0;
  wrongOutcomes = 0;
  falseReports = 0;
  readonly notes: string[] = [];

  private bump(
    field: 'duplicates' | 'adopted' | 'orphans' | 'leaks' | 'wrongOutcomes' | 'falseReports',
    cell: string,
    why: string,
  ) {
    this[field]++;
    this.notes.push(`${cell}: ${field}: ${why}`);
  }

  /** Checks a claim about a cell; counts it under `field` when false. */
  check(ok: boolean, field: Parameters<Ledger['bump']>[0], cell: string, why: string): void {
    if (!ok) this.bump(field, cell, why);
  }

  /** Counts a cell that has ended, and checks that it ended as expected. */
  ended(cell: string, end: { outcome: Outcome; failure?: string }, expected: Outcome): void {
    this.cells++;
    this.check(
      end.outcome === expected,
      'wrongOutcomes',
      cell,
      `${end.outcome} (${end.failure ?? ''}), not ${expected}`,
    );
  }

  totals() {
    const { cells, duplicates, adopted, orphans, leaks, wrongOutcomes, falseReports } = this;
    return { cells, duplicates, adopted, orphans, leaks, wrongOutcomes, falseReports };
  }

  /** Adds `cell`'s counts and notes to this ledger's (a cell's own ledger, to the run's). */
  add(cell: Ledger): void {
    for (const [field, n] of Object.entries(cell.totals())) this[field as keyof ReturnType<Ledger['totals']>] += n;
    this.notes.push(...cell.notes);
  }

  /** Throws, naming every problem, when this ledger counted any (a cell's test asserts its own). */
  assertClean(): void {
    const { cells: _cells, ...problems } = this.totals();
    const clean = { duplicates: 0, adopted: 0, orphans: 0, leaks: 0, wrongOutcomes: 0, falseReports: 0 };
    assert.deepEqual(problems, clean, this.notes.join('\n'));
  }
}
