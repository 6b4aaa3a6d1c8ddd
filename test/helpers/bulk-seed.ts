/** A seed with a large suite: n auto-generated definitions over 50 tables × 40 columns × 10 test types (n ≤ 20,000). */
import { defaultSeed, type SeedInput } from '../../src/simulator/index.js';

export const BULK = {
  tableGroup: 'a1000000-0000-4000-8000-0000000000b1',
  source: 'b2000000-0000-4000-8000-0000000000b1',
  target: 'b2000000-0000-4000-8000-0000000000b2',
} as const;

const TYPES = [
  'Unique',
  'Missing_Pct',
  'Min_Val',
  'Avg_Shift',
  'Recency',
  'Required',
  'Row_Ct',
  'Alpha_Trunc',
  'Distinct_Value_Ct',
  'LOV_Match',
];

/** The default seed plus the bulk suites (`bulkSuites`). */
export function bulkSeed(n = 20_000): SeedInput {
  const bulk = bulkSuites(n);
  return {
    ...defaultSeed,
    table_groups: [...defaultSeed.table_groups, ...bulk.table_groups],
    test_suites: [...defaultSeed.test_suites, ...bulk.test_suites],
  };
}

/** A table group with a source suite of `n` definitions and a target suite holding the even-numbered half. */
export function bulkSuites(n = 20_000): Pick<SeedInput, 'table_groups' | 'test_suites'> {
  if (n > TYPES.length * 50 * 40) throw new RangeError(`at most ${TYPES.length * 50 * 40} unique definitions`);
  const tables = Array.from({ length: 50 }, (_, t) => ({
    name: `fact_${t}`,
    columns: Array.from({ length: 40 }, (_, c) => `col_${c}`),
    record_ct: 1_000_000,
  }));
  const defs = Array.from({ length: n }, (_, i) => {
    const type = TYPES[i % TYPES.length]!;
    const t = Math.floor(i / TYPES.length) % 50;
    const c = Math.floor(i / (TYPES.length * 50));
    return {
      test_type: type,
      table_name: `fact_${t}`,
      column_name: `col_${c}`,
      threshold_value: String((t * c) % 97),
      last_auto_gen_date: '2026-10-01T00:00:00Z',
      test_description: `${type} on fact_${t}.col_${c}`,
    };
  });
  return {
    table_groups: [{ id: BULK.tableGroup, name: 'bulk', project_code: 'DEMO', schema_name: 'bulk', tables }],
    test_suites: [
      { id: BULK.source, name: 'bulk-dev', project_code: 'DEMO', table_group_id: BULK.tableGroup, definitions: defs },
      {
        id: BULK.target,
        name: 'bulk-prod',
        project_code: 'DEMO',
        table_group_id: BULK.tableGroup,
        definitions: defs.filter((_, i) => i % 2 === 0),
      },
    ],
  };
}
