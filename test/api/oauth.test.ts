import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BearerSource } from '../../src/api/bearer.js';
import { SessionManager } from '../../src/api/session.js';
import type { Transport } from '../../src/api/transport.js';

/** A token endpoint that issues a0, a1, … and counts its refreshes. */
function endpoint() {
  let issued = 0;
  const transport = {
    send: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { status: 200, text: JSON.stringify({ access_token: `a${issued++}`, expires_in: 3600 }), headers: {} };
    },
  } as unknown as Transport;
  return { transport, issued: () => issued };
}

describe('OAuth token source', () => {
  test('callers refused with the same stale token cause one refresh, not one each', async () => {
    const { transport, issued } = endpoint();
    const bearer = new BearerSource(
      new SessionManager({ login: async () => 'unused' }),
      { type: 'oauth', tokenUrl: 'http://t/oauth/token', clientId: 'c', refreshToken: 'r' },
      transport,
    );
    const stale = await bearer.token('api', false);
    assert.equal(stale, 'a0');
    // Two calls got a 401 with the same token; each does what the client does: invalidate it, ask again.
    bearer.invalidate('api', stale);
    const first = await bearer.token('api', true);
    bearer.invalidate('api', stale); // names the old token: the new one stays
    const second = await bearer.token('api', true);
    assert.deepEqual([first, second], ['a1', 'a1'], 'a second refresh would revoke the token the first caller holds');
    assert.equal(issued(), 2, 'one refresh at start, one after the 401s');
    assert.equal(bearer.oauth?.refreshes, 2);
  });
});
