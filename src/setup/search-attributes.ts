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

/**
 * Thrown when the namespace lacks our search attributes and they cannot be registered (`require`, or no right to),
 * or has one of another type: its message names them and the fix.
 */
export class SearchAttributesMissing extends Error {
  override readonly name = 'SearchAttributesMissing';
}

/** What fixes a namespace without them, for a message. */
export const registrationHelp = (namespace: string): string =>
  `register them (\`dataops setup search-attributes\`, or ${registrationCommands(namespace).join('; ')}; on Temporal ` +
  'Cloud with tcld or the Cloud UI), or set DATAOPS_SEARCH_ATTRIBUTES=off';

/**
 * Our attributes not registered in `namespace`; throws SearchAttributesMissing when one is registered with another
 * type (no registration can mend that).
 */
export async function missingSearchAttributes(connection: WithOperator, namespace: string): Promise<string[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  const wrong = NAMES.filter((n) => custom[n] !== undefined && custom[n] !== KEYWORD);
  if (wrong.length)
    throw new SearchAttributesMissing(
      `search attribute(s) ${wrong.join(', ')} are registered in namespace ${namespace} with a type other than Keyword: ${registrationHelp(namespace)}`,
    );
  return NAMES.filter((n) => custom[n] === undefined);
}

/** Registers the missing ones; returns their names (empty when all were there). */
export const ensureSearchAttributes = (connection: WithOperator, namespace: string): Promise<string[]> =>
  prepareSearchAttributes(connection, namespace, 'register');

/** How a namespace's search attributes are made ready: registered where missing, or only checked. */
export type SearchAttributesMode = 'register' | 'require';

/**
 * Makes the namespace ready for the workflows' search attributes (an unregistered one fails every workflow task):
 * registers the missing ones (`register`), or checks them (`require`). Returns the names it registered; throws
 * SearchAttributesMissing naming what is missing and the fix, or the connection's own error (worth trying again).
 */
export async function prepareSearchAttributes(
  connection: WithOperator,
  namespace: string,
  mode: SearchAttributesMode,
): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (!missing.length) return [];
  const lacks = `namespace ${namespace} lacks ${missing.join(', ')}`;
  if (mode === 'require') throw new SearchAttributesMissing(`${lacks}: ${registrationHelp(namespace)}`);
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, KEYWORD])),
    });
  } catch (err) {
    throw new SearchAttributesMissing(
      `${lacks}, and registering it failed (${(err as Error).message}): ${registrationHelp(namespace)}`,
    );
  }
  return missing;
}
