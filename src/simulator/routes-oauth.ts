/**
 * The OAuth 2.1 token endpoint as TestGen 5.134 serves it (`testgen/api/oauth/server.py`), for the refresh-token
 * grant: `POST /oauth/token`, `POST /oauth/revoke` and the server metadata. A grant issues an access token for
 * `/api/v1` (1 hour; `accessTokenLifetimeMs`) and revokes the access token issued with the presented refresh token.
 * A confidential client (with a secret) keeps its refresh token until it expires, so any number of workers may share
 * it. A public client gets a new refresh token at every grant, its chain ending when the first one's lifetime does;
 * a replaced token presented again is refused, and after a minute its whole chain is revoked (it may be stolen).
 * Refresh tokens come from the controls (`POST /_sim/oauth/refresh-tokens`, 30 days by default), standing in for the
 * browser's authorization-code flow. Errors have the OAuth shape: `{error, error_description}`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { issueToken, sameSecret } from './auth.js';
import type { SimContext } from './context.js';
import { SimError } from './errors.js';
import type { RefreshTokenRecord } from './state.js';

const oauthError = (status: number, error: string, description: string) =>
  new SimError(status, { error, error_description: description }, { 'cache-control': 'no-store' });

/** A replaced refresh token presented again this soon is only refused (TestGen's REFRESH_REUSE_GRACE_SECONDS). */
export const REFRESH_REUSE_GRACE_MS = 60_000;

const newRefreshToken = () => randomBytes(32).toString('base64url');

/** Revokes the access token issued with a refresh token (TestGen's `revoke_old_credential`), if any. */
function revokeIssuedWith(ctx: SimContext, record: RefreshTokenRecord): void {
  const access = record.access_token === undefined ? undefined : ctx.state.tokens[record.access_token];
  if (access) access.revoked = true;
}

/** Revokes a refresh token and the access token issued with it. */
function revokeRefresh(ctx: SimContext, record: RefreshTokenRecord, now: number): void {
  record.revoked = true;
  record.revoked_at ??= now;
  revokeIssuedWith(ctx, record);
}

/** Revokes every live token of the chain `chain` (a public client's replaced token came back late). */
function revokeChain(ctx: SimContext, chain: string, now: number): void {
  for (const [token, record] of Object.entries(ctx.state.refresh_tokens))
    if ((record.chain ?? token) === chain && !record.revoked) revokeRefresh(ctx, record, now);
}

/**
 * Issues a refresh token for a user to a client, registering the client (confidential when it has a secret): the
 * controls' stand-in for registration and the authorization-code flow (they check the user exists).
 */
export function issueRefreshToken(
  ctx: SimContext,
  grant: { username: string; clientId: string; clientSecret?: string; lifetimeMs: number },
): string {
  const { username, clientId, clientSecret, lifetimeMs } = grant;
  ctx.state.oauth_clients[clientId] = clientSecret === undefined ? {} : { client_secret: clientSecret };
  const token = newRefreshToken();
  ctx.state.refresh_tokens[token] = {
    username,
    client_id: clientId,
    expires_at: ctx.clock.now() + lifetimeMs,
    revoked: false,
  };
  return token;
}

/** The client id of a request: HTTP Basic (`client_secret_basic`) or the form's `client_id` (public client). */
function clientOf(ctx: SimContext, req: FastifyRequest, form: Record<string, unknown>): string {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (basic?.[1]) {
    const [id = '', secret = ''] = Buffer.from(basic[1], 'base64').toString().split(':');
    const known = ctx.state.oauth_clients[id];
    if (!known?.client_secret || !sameSecret(known.client_secret, secret))
      throw oauthError(401, 'invalid_client', 'client authentication failed');
    return id;
  }
  const id = typeof form.client_id === 'string' ? form.client_id : '';
  if (!id) throw oauthError(401, 'invalid_client', 'client_id is required');
  if (ctx.state.oauth_clients[id]?.client_secret) throw oauthError(401, 'invalid_client', 'confidential client');
  return id;
}

export async function oauthRoutes(app: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  app.get('/.well-known/oauth-authorization-server', async (req) => {
    const base = `${req.protocol}://${req.host}`;
    return {
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      code_challenge_methods_supported: ['S256'],
    };
  });

  app.post('/oauth/token', async (req, reply) => {
    const form = formOf(req);
    const clientId = clientOf(ctx, req, form);
    if (form.grant_type !== 'refresh_token')
      throw oauthError(400, 'unsupported_grant_type', 'the simulator grants refresh_token only');
    const refresh = typeof form.refresh_token === 'string' ? form.refresh_token : '';
    const record = ctx.state.refresh_tokens[refresh];
    const now = ctx.clock.now();
    const invalid = () =>
      oauthError(400, 'invalid_grant', 'refresh token is invalid, expired, revoked or not this client');
    if (!record || record.expires_at <= now || record.client_id !== clientId) throw invalid();
    const rotates = !ctx.state.oauth_clients[clientId]?.client_secret;
    if (record.revoked) {
      if (rotates && record.revoked_at !== undefined && now - record.revoked_at > REFRESH_REUSE_GRACE_MS)
        revokeChain(ctx, record.chain ?? refresh, now);
      throw invalid();
    }
    const access = issueToken(ctx, record.username, 'api', ctx.accessTokenLifetimeMs);
    // The presented token's own access token goes; a public client's refresh token goes with it (rotation).
    let next: string | undefined;
    if (rotates) {
      next = newRefreshToken();
      const { username, client_id, expires_at } = record;
      const chain = record.chain ?? refresh;
      ctx.state.refresh_tokens[next] = { username, client_id, expires_at, revoked: false, chain, access_token: access };
      revokeRefresh(ctx, record, now);
    } else revokeIssuedWith(ctx, record);
    req.simUser = record.username;
    return reply.header('cache-control', 'no-store').send({
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(ctx.accessTokenLifetimeMs / 1000),
      ...(next === undefined ? {} : { refresh_token: next }),
    });
  });

  app.post('/oauth/revoke', async (req) => {
    const form = formOf(req);
    clientOf(ctx, req, form);
    const token = typeof form.token === 'string' ? form.token : '';
    const refresh = ctx.state.refresh_tokens[token];
    if (refresh) revokeRefresh(ctx, refresh, ctx.clock.now());
    const access = ctx.state.tokens[token];
    if (access) access.revoked = true;
    return {}; // RFC 7009: an unknown token is not an error
  });
}

function formOf(req: FastifyRequest): Record<string, unknown> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
    throw oauthError(400, 'invalid_request', 'the body must be form-encoded');
  return (req.body ?? {}) as Record<string, unknown>;
}
