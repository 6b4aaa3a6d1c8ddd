/**
 * The benchmark's seed: `n` table groups and suites of their own (one small table, one test each), and, when the
 * capacity run promotes `promotion` definitions, the bulk suites it promotes between.
 */
import { defaultSeed, type SeedInput } from '../../src/simulator/index.js';
import { bulkSuites } from '../../test/helpers/bulk-seed.js';
import type { Target } from './loop.js';

const hex = (i: number) => i.toString(16).padStart(12, '0');

export function scaleSeed(n: number, promotion: number): { seed: SeedInput; targets: Target[] } {
  const targets = Array.from({ length: n }, (_, i) => ({
    tableGroupId: `a5000000-0000-4000-8000-${hex(i)}`,
    testSuiteId: `b5000000-0000-4000-8000-${hex(i)}`,
  }));
  // The bulk suites the capacity run promotes (promotion.ts), when it does.
  const bulk = promotion > 0 ? bulkSuites(promotion) : { table_groups: [], test_suites: [] };
  return {
    targets,
    seed: {
      ...defaultSeed,
      table_groups: [
        ...bulk.table_groups,
        ...targets.map((t, i) => ({
          id: t.tableGroupId,
          name: `scale-${i}`,
          project_code: 'DEMO',
          schema_name: `scale_${i}`,
          tables: [{ name: 'facts', columns: ['id', 'amount'], record_ct: 1_000 }],
        })),
      ],
      test_suites: [
        ...bulk.test_suites,
        ...targets.map((t, i) => ({
          id: t.testSuiteId,
          name: `scale-${i}`,
          project_code: 'DEMO',
          table_group_id: t.tableGroupId,
          definitions: [{ test_type: 'Unique', table_name: 'facts', column_name: 'id' }],
        })),
      ],
    },
  };
}
