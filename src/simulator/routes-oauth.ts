/**
 * The OAuth 2.1 token endpoint as TestGen 5.134 serves it, for the refresh-token grant: `POST /oauth/token`,
 * `POST /oauth/revoke` and the server metadata. A grant issues a 1-hour access token for `/api/v1`, revokes the
 * access token that refresh token granted before, and returns the same refresh token (TestGen does not rotate
 * them). Refresh tokens come from the controls (`POST /_sim/oauth/refresh-tokens`), standing in for the browser's
 * authorization-code flow. Errors have the OAuth shape: `{error, error_description}`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { issueToken, sameSecret } from './auth.js';
import type { SimContext } from './context.js';
import { SimError } from './errors.js';

const oauthError = (status: number, error: string, description: string) =>
  new SimError(status, { error, error_description: description }, { 'cache-control': 'no-store' });

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
  const token = randomBytes(32).toString('base64url');
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
    if (!record || record.revoked || record.expires_at <= ctx.clock.now() || record.client_id !== clientId)
      throw oauthError(400, 'invalid_grant', 'refresh token is invalid, expired, revoked or not this client');
    for (const t of Object.values(ctx.state.tokens)) if (t.granted_by === refresh) t.revoked = true;
    const access = issueToken(ctx, record.username, 'api', ctx.accessTokenLifetimeMs, refresh);
    req.simUser = record.username;
    return reply.header('cache-control', 'no-store').send({
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(ctx.accessTokenLifetimeMs / 1000),
      refresh_token: refresh,
    });
  });

  app.post('/oauth/revoke', async (req) => {
    const form = formOf(req);
    clientOf(ctx, req, form);
    const token = typeof form.token === 'string' ? form.token : '';
    const refresh = ctx.state.refresh_tokens[token];
    if (refresh) refresh.revoked = true;
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
