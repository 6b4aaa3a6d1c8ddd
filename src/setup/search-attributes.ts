/**
 * Registers the project's search attributes in a namespace (dev servers, self-hosted clusters; on Temporal Cloud
 * they are added with `tcld` or the Cloud UI), and says which are missing. Idempotent: one already registered with
 * our type is kept; one registered with another type is an error naming both.
 */
import proto from '@temporalio/proto';

const { temporal } = proto;
import { SEARCH_ATTRIBUTES } from '../contract/search-attributes.js';

/** A client's or a worker's connection: both carry the operator service. */
type WithOperator = { operatorService: proto.temporal.api.operatorservice.v1.OperatorService };

const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const NAMES = Object.values(SEARCH_ATTRIBUTES).map((k) => k.name);

/** The CLI commands that register them by hand, for a message. */
export function registrationCommands(namespace: string): string[] {
  return NAMES.map(
    (name) => `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type Keyword`,
  );
}

/** Our attributes not registered in `namespace`; throws when one is registered with another type. */
export async function missingSearchAttributes(connection: WithOperator, namespace: string): Promise<string[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  const wrong = NAMES.filter((n) => custom[n] !== undefined && custom[n] !== KEYWORD);
  if (wrong.length)
    throw new Error(
      `search attribute(s) ${wrong.join(', ')} are registered in namespace ${namespace} with a type other than Keyword`,
    );
  return NAMES.filter((n) => custom[n] === undefined);
}

/** Registers the missing ones; returns their names (empty when all were there). */
export async function ensureSearchAttributes(connection: WithOperator, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length)
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, KEYWORD])),
    });
  return missing;
}
