/**
 * An order run's page in the service's UI, `{base}/#/orders/{customer_git_name}/{kitchen}/runs/{order_run_id}`
 * (deployed-variants.md), `customer_git_name` from `GET /v2/userinfo`: read once per client, and again after a
 * failure. A deployment that does not answer it has no page; the order's wait goes on without one. The read is shared
 * by every wait that asks meanwhile, so it takes no one wait's cancellation: the client's request timeout bounds it.
 */
import { log } from '@temporalio/activity';
import type { ServiceClient } from '../api/index.js';

const customers = new WeakMap<ServiceClient, Promise<string>>();

function customerOf(client: ServiceClient): Promise<string> {
  const known = customers.get(client);
  if (known) return known;
  const asked = client.userInfo().then((u) => u.customer_git_name);
  customers.set(client, asked);
  asked.catch(() => customers.delete(client));
  return asked;
}

/** The page of order run `orderRunId` of `kitchen`, or undefined (with a warning) when the account is not known. */
export async function orderRunPage(
  client: ServiceClient,
  kitchen: string,
  orderRunId: string,
): Promise<string | undefined> {
  try {
    const customer = await customerOf(client);
    const seg = encodeURIComponent;
    return `${client.baseUrl}/#/orders/${seg(customer)}/${seg(kitchen)}/runs/${seg(orderRunId)}`;
  } catch (err) {
    log.warn('the order run has no page: GET /v2/userinfo did not name the account', {
      orderRunId,
      error: (err as Error).message,
    });
    return undefined;
  }
}
