/**
 * Tables named as OpenLineage names them, by the connection of their table group: a case per database type TestGen
 * connects to, what is read from a host or a URL, what a missing field says, and how a worker resolves a table group
 * through the service and its per-connection setting. The names agree with the OpenLineage Python client's own naming
 * helpers where it has one (test/lineage/openlineage-client.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Datasources, type DatasourceReader } from '../../src/lineage/datasources.js';
import { namingOf, type Datasource } from '../../src/lineage/naming.js';
import { FLAVOURS } from '../helpers/lineage-samples.js';

/** The name of `finance.ledger` on `d`. */
const name = (d: Datasource) => {
  const naming = namingOf(d);
  assert.ok(!('problem' in naming), 'problem' in naming ? naming.problem : '');
  return naming('finance', 'ledger');
};

describe('dataset names by connection type', () => {
  for (const [what, d, namespace, n] of FLAVOURS) test(what, () => assert.deepEqual(name(d), { namespace, name: n }));

  test('TestGen flavor codes name the same types as its labels', () => {
    for (const [code, label] of [
      ['postgresql', 'PostgreSQL'],
      ['redshift', 'Amazon Redshift'],
      ['snowflake', 'Snowflake'],
      ['bigquery', 'Google BigQuery'],
      ['mssql', 'Microsoft SQL Server'],
      ['databricks', 'Databricks'],
    ] as const) {
      const of = FLAVOURS.find(([, d]) => d.type === label)![1];
      assert.deepEqual(name({ ...of, type: code }), name(of), code);
    }
  });

  test('a URL-mode connection gives its host, port and database; a field given wins over the URL', () => {
    assert.deepEqual(name({ type: 'PostgreSQL', url: 'postgresql://bob@pg.internal:6432/warehouse?sslmode=require' }), {
      namespace: 'postgres://pg.internal:6432',
      name: 'warehouse.finance.ledger',
    });
    assert.deepEqual(
      name({ type: 'Microsoft SQL Server', url: 'jdbc:sqlserver://sql.internal:1444/ops' }).namespace,
      'mssql://sql.internal:1444',
    );
    assert.deepEqual(name({ type: 'PostgreSQL', url: 'postgresql://a:1/x', database: 'y' }).name, 'y.finance.ledger');
  });

  test('Redshift Serverless and a privatelink Snowflake host; an explicit cluster, region or account', () => {
    assert.equal(
      name({ type: 'redshift', host: 'wg.123456789012.us-east-1.redshift-serverless.amazonaws.com', database: 'd' })
        .namespace,
      'redshift://wg.us-east-1:5439',
    );
    assert.equal(
      name({ type: 'Amazon Redshift', host: 'proxy.internal', cluster: 'prod', region: 'eu-central-1', database: 'd' })
        .namespace,
      'redshift://prod.eu-central-1:5439',
    );
    assert.equal(
      name({ type: 'Snowflake', host: 'ACME-X.privatelink.snowflakecomputing.com', database: 'D' }).namespace,
      'snowflake://acme-x',
    );
    assert.equal(name({ type: 'Snowflake', account: 'org-acct', database: 'D' }).namespace, 'snowflake://org-acct');
  });

  test('a table without a schema takes none', () => {
    const naming = namingOf(FLAVOURS[0]![1]);
    assert.ok(!('problem' in naming));
    assert.equal(naming(undefined, 'ledger').name, 'dw.ledger');
  });

  test('what is missing is said, with what to set', () => {
    const problem = (d: Datasource) => {
      const n = namingOf(d);
      assert.ok('problem' in n, JSON.stringify(d));
      return n.problem;
    };
    assert.equal(
      problem({ type: 'Google BigQuery' }),
      'a Google BigQuery connection needs project to name its tables as OpenLineage does',
    );
    assert.equal(
      problem({ type: 'Amazon Redshift', host: 'redshift.internal', database: 'd' }),
      'a Amazon Redshift connection needs cluster and region to name its tables as OpenLineage does',
    );
    assert.match(problem({ type: 'PostgreSQL', database: 'd' }), /needs host/);
    assert.equal(
      problem({ type: 'PostgreSQL', host: '<embedded>', database: 'd' }),
      'a PostgreSQL connection whose host is "<embedded>" needs a host name',
    );
    assert.match(problem({ type: 'PostgreSQL', host: 'h' }), /needs database/);
    assert.match(problem({ type: 'Snowflake', host: 'sf.internal', database: 'D' }), /needs account/);
    assert.match(
      problem({ type: 'DuckDB' }),
      /^no OpenLineage naming rule for a DuckDB connection \(there is one for: postgresql, /,
    );
  });
});

describe('a table group resolved through the service and the per-connection setting', () => {
  /** A reader of TestGen's two calls over fixed answers, counting its reads; `fail` throws instead. */
  function reader(connection: Record<string, unknown> | null, fail?: Error) {
    const reads: string[] = [];
    const r: DatasourceReader = {
      tableGroup: async (id) => {
        reads.push(`table group ${id}`);
        if (fail) throw fail;
        return connection ? { connection_id: 7, schema_name: 'finance' } : null;
      },
      connection: async (id) => {
        reads.push(`connection ${id}`);
        return connection;
      },
    };
    return { r, reads };
  }
  const PG = {
    connection_name: 'warehouse',
    connection_type: 'PostgreSQL',
    settings: { host: 'pg.example.com', port: '5432', database: 'dw', username: 'profiler' },
  };

  test("the connection's settings name the tables, and the group's schema is the default; read once and kept", async () => {
    const sources = new Datasources();
    const { r, reads } = reader(PG);
    const resolved = await sources.resolve('default', 'tg-1', r);
    assert.ok('naming' in resolved);
    assert.equal(resolved.schema, 'finance');
    assert.deepEqual(resolved.naming('finance', 'ledger'), {
      namespace: 'postgres://pg.example.com:5432',
      name: 'dw.finance.ledger',
    });
    await sources.resolve('default', 'tg-1', r);
    assert.deepEqual(reads, ['table group tg-1', 'connection 7'], 'kept: no second read');
  });

  test('kept ten minutes, then read again', async () => {
    let now = 0;
    const sources = new Datasources({}, () => now);
    const { r, reads } = reader(PG);
    await sources.resolve('default', 'tg-1', r);
    now = 9 * 60_000;
    await sources.resolve('default', 'tg-1', r);
    now = 11 * 60_000;
    await sources.resolve('default', 'tg-1', r);
    assert.equal(reads.length, 4);
  });

  test('the setting adds what TestGen does not show, by id, by name, or for any connection', async () => {
    const bq = { connection_name: 'lake', connection_type: 'Google BigQuery', settings: {} };
    for (const key of ['7', 'lake', '*']) {
      const resolved = await new Datasources({ [key]: { project: 'acme-dw' } }).resolve('p', 'tg', reader(bq).r);
      assert.ok('naming' in resolved, key);
      assert.equal(resolved.naming('finance', 'ledger').name, 'acme-dw.finance.ledger', key);
    }
    // A deployment that serves neither call: the setting alone.
    const alone = await new Datasources({ '*': { type: 'PostgreSQL', host: 'db', database: 'dw' } }).resolve(
      'p',
      'tg',
      reader(null).r,
    );
    assert.ok('naming' in alone);
    assert.deepEqual(alone.naming('s', 't'), { namespace: 'postgres://db:5432', name: 'dw.s.t' });
  });

  test('what cannot be named says why and what to set; a failed read is not kept', async () => {
    const none = await new Datasources().resolve('p', 'tg-9', reader(null).r);
    assert.deepEqual(none, {
      problem: 'the service shows no connection for table group tg-9 and DATAOPS_LINEAGE_CONNECTIONS names none',
    });
    const bq = await new Datasources().resolve(
      'p',
      'tg',
      reader({ connection_name: 'lake', connection_type: 'Google BigQuery' }).r,
    );
    assert.deepEqual(bq, {
      problem:
        'a Google BigQuery connection needs project to name its tables as OpenLineage does (connection lake: set it in DATAOPS_LINEAGE_CONNECTIONS)',
    });
    const sources = new Datasources();
    const failing = reader(PG, new Error('503 Service Unavailable'));
    await assert.rejects(sources.resolve('p', 'tg', failing.r), /503/);
    const { r } = reader(PG);
    const after = await sources.resolve('p', 'tg', r);
    assert.ok('naming' in after, 'read again after a failed read');
  });
});
