/**
 * The default seed project "DEMO": kitchens for orders, users of every role, table groups with profiled tables
 * (one auto-generating tests), and a development and a production test suite that exercise every import action.
 */
import type { SeedInput } from './seed.js';

export const SEED_IDS = {
  tableGroups: {
    sales: 'a1000000-0000-4000-8000-000000000001',
    salesDev: 'a1000000-0000-4000-8000-000000000002',
    finance: 'a1000000-0000-4000-8000-000000000003',
    other: 'a1000000-0000-4000-8000-000000000004',
  },
  testSuites: {
    salesProd: 'b2000000-0000-4000-8000-000000000001',
    salesDev: 'b2000000-0000-4000-8000-000000000002',
    financeProd: 'b2000000-0000-4000-8000-000000000003',
    otherQuality: 'b2000000-0000-4000-8000-000000000004',
  },
  externalIds: {
    orderStatus: 'c3000000-0000-4000-8000-000000000001',
    zipRule: 'c3000000-0000-4000-8000-000000000002',
    zipValid: 'c3000000-0000-4000-8000-000000000003',
  },
} as const;

export const SEED_USERS = {
  admin: { username: 'alice', password: 'alice-demo-password' },
  operator: { username: 'otto', password: 'otto-demo-password' },
  viewer: { username: 'vera', password: 'vera-demo-password' },
  outsider: { username: 'mallory', password: 'mallory-demo-password' },
} as const;

const AUTO_DATE = '2026-10-01T06:00:00Z';
const { tableGroups: TG, testSuites: TS, externalIds: X } = SEED_IDS;

const salesTables = [
  {
    name: 'orders',
    columns: ['id', 'customer_id', 'amount', 'order_date', 'status'],
    record_ct: 120_000,
    hygiene: { definite: 1, likely: 1, possible: 2 },
    dismissed: 1,
  },
  {
    name: 'customers',
    columns: ['id', 'email', 'zip', 'created_at'],
    record_ct: 35_000,
    hygiene: { definite: 0, likely: 1, possible: 1 },
    pii: { high: 1, moderate: 1 },
  },
];

export const defaultSeed: SeedInput = {
  test_types: [
    'Alpha_Trunc',
    'Avg_Shift',
    'CUSTOM',
    'Daily_Record_Ct',
    'Distinct_Value_Ct',
    'Email_Format',
    'Future_Date',
    'LOV_Match',
    'Min_Date',
    'Min_Val',
    'Missing_Pct',
    'Pattern_Match',
    'Recency',
    'Required',
    'Row_Ct',
    'Unique',
    'Valid_US_Zip',
  ],
  users: [
    { ...SEED_USERS.admin, role: 'admin', kitchens: ['production', 'staging'], projects: ['DEMO'] },
    { ...SEED_USERS.operator, role: 'operator', kitchens: ['staging'], projects: ['DEMO'] },
    { ...SEED_USERS.viewer, role: 'viewer', kitchens: ['production', 'staging'], projects: ['DEMO'] },
    { ...SEED_USERS.outsider, role: 'operator', kitchens: [], projects: ['OTHER'] },
  ],
  kitchens: [
    {
      name: 'production',
      variables: {
        schedule_start: 'order_schedule',
        schedule_frequency: 'order_schedule',
        storage_bucket: 'infrastructure',
        db_schema: 'infrastructure',
        image_tag: 'infrastructure',
        source_data_date: 'source_data_date',
        alert_email: 'alert_destination',
        alert_slack_channel: 'alert_destination',
      },
      recipes: [
        { name: 'load-warehouse', variations: [{ name: 'daily' }, { name: 'backfill' }] },
        { name: 'refresh-marts', variations: [{ name: 'full' }] },
      ],
    },
    {
      name: 'staging',
      variables: {
        storage_bucket: 'infrastructure',
        image_tag: 'infrastructure',
        source_data_date: 'source_data_date',
        alert_email: 'alert_destination',
      },
      recipes: [{ name: 'load-warehouse', variations: [{ name: 'daily' }, { name: 'broken', fails: true }] }],
    },
  ],
  table_groups: [
    {
      id: TG.sales,
      name: 'sales',
      project_code: 'DEMO',
      schema_name: 'sales',
      tables: salesTables,
      auto_generate_suite_id: TS.salesProd,
      generated_tests: [
        { test_type: 'Unique', table_name: 'orders', column_name: 'id', threshold_value: '0' },
        { test_type: 'Missing_Pct', table_name: 'orders', column_name: 'customer_id', threshold_value: '0.01' },
        { test_type: 'Min_Val', table_name: 'orders', column_name: 'amount', threshold_value: '0' },
        { test_type: 'Email_Format', table_name: 'customers', column_name: 'email', threshold_value: '0.02' },
        { test_type: 'Unique', table_name: 'customers', column_name: 'id', threshold_value: '0' },
      ],
    },
    {
      id: TG.salesDev,
      name: 'sales-dev',
      project_code: 'DEMO',
      schema_name: 'sales_dev',
      tables: [
        ...salesTables,
        { name: 'returns', columns: ['id', 'order_id', 'reason'], record_ct: 4_200, hygiene: { possible: 1 } },
      ],
    },
    {
      id: TG.finance,
      name: 'finance',
      project_code: 'DEMO',
      schema_name: 'finance',
      tables: [
        { name: 'ledger', columns: ['entry_id', 'account', 'amount', 'posted_at'], record_ct: 880_000 },
        { name: 'accounts', columns: ['account', 'owner'], record_ct: 1_200, hygiene: { likely: 1 } },
      ],
    },
    {
      id: TG.other,
      name: 'other',
      project_code: 'OTHER',
      schema_name: 'other',
      tables: [{ name: 'events', columns: ['id', 'payload'], record_ct: 10 }],
    },
  ],
  test_suites: [
    {
      id: TS.salesProd,
      name: 'sales-prod',
      project_code: 'DEMO',
      table_group_id: TG.sales,
      definitions: [
        {
          test_type: 'Unique',
          table_name: 'orders',
          column_name: 'id',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Missing_Pct',
          table_name: 'orders',
          column_name: 'customer_id',
          threshold_value: '0.05',
          lock_refresh: true,
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Min_Val',
          table_name: 'orders',
          column_name: 'amount',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Future_Date',
          table_name: 'orders',
          column_name: 'order_date',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Email_Format',
          table_name: 'customers',
          column_name: 'email',
          threshold_value: '0.01',
          severity: 'Warning',
          lock_refresh: true,
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'CUSTOM',
          table_name: 'orders',
          column_name: 'status',
          external_id: X.orderStatus,
          custom_query: "status NOT IN ('new', 'shipped', 'returned')",
          threshold_value: '0',
          test_description: 'Order status is one of the known values',
        },
        {
          test_type: 'Pattern_Match',
          table_name: 'customers',
          column_name: 'zip',
          external_id: X.zipRule,
          baseline_value: '^[0-9]{5}$',
          threshold_value: '10',
          lock_refresh: true,
        },
        {
          test_type: 'Valid_US_Zip',
          table_name: 'customers',
          column_name: 'zip',
          external_id: X.zipValid,
          threshold_value: '0',
        },
      ],
      outcomes: { 'customers.email:Email_Format': 'warning' },
    },
    {
      id: TS.salesDev,
      name: 'sales-dev',
      project_code: 'DEMO',
      table_group_id: TG.salesDev,
      definitions: [
        {
          test_type: 'Unique',
          table_name: 'orders',
          column_name: 'id',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Missing_Pct',
          table_name: 'orders',
          column_name: 'customer_id',
          threshold_value: '0.02',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Min_Val',
          table_name: 'orders',
          column_name: 'amount',
          threshold_value: '1',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Avg_Shift',
          table_name: 'orders',
          column_name: 'amount',
          threshold_value: '2.5',
          baseline_avg: '84.10',
          baseline_sd: '12.7',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Recency',
          table_name: 'orders',
          column_name: 'order_date',
          threshold_value: '3',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'CUSTOM',
          table_name: 'orders',
          column_name: 'status',
          external_id: X.orderStatus,
          custom_query: "status NOT IN ('new', 'shipped', 'returned', 'cancelled')",
          threshold_value: '0',
          test_description: 'Order status is one of the known values',
          custom_metadata: { owner: 'sales-data-team', ticket: 'DQ-412' },
        },
        {
          test_type: 'Pattern_Match',
          table_name: 'customers',
          column_name: 'zip',
          external_id: X.zipRule,
          baseline_value: '^[0-9]{5}(-[0-9]{4})?$',
          threshold_value: '5',
        },
        {
          test_type: 'Email_Format',
          table_name: 'customers',
          column_name: 'email',
          threshold_value: '0',
          test_description: 'Manual check written in development',
        },
        {
          test_type: 'LOV_Match',
          table_name: 'returns',
          column_name: 'reason',
          threshold_value: '0',
          baseline_value: "('damaged','late','wrong_item')",
          last_auto_gen_date: AUTO_DATE,
        },
      ],
    },
    {
      id: TS.financeProd,
      name: 'finance-prod',
      project_code: 'DEMO',
      table_group_id: TG.finance,
      definitions: [
        {
          test_type: 'Unique',
          table_name: 'ledger',
          column_name: 'entry_id',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Required',
          table_name: 'ledger',
          column_name: 'account',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Recency',
          table_name: 'ledger',
          column_name: 'posted_at',
          threshold_value: '1',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Unique',
          table_name: 'accounts',
          column_name: 'account',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
        {
          test_type: 'Required',
          table_name: 'accounts',
          column_name: 'owner',
          threshold_value: '0',
          test_active: false,
          last_auto_gen_date: AUTO_DATE,
        },
      ],
      outcomes: {
        'ledger.account:Required': 'failed',
        'ledger.posted_at:Recency': 'error',
        'accounts.account:Unique': 'dismissed',
      },
    },
    {
      id: TS.otherQuality,
      name: 'other-quality',
      project_code: 'OTHER',
      table_group_id: TG.other,
      definitions: [
        {
          test_type: 'Unique',
          table_name: 'events',
          column_name: 'id',
          threshold_value: '0',
          last_auto_gen_date: AUTO_DATE,
        },
      ],
    },
  ],
};
