/** Simulated authentication: login, session and API tokens, expiry and revocation, and the role and project checks. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SimContext, SimUser } from './context.js';
import { forbidden, notFound, unauthorized } from './errors.js';

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Checks credentials and issues a session token, or returns undefined. */
export function login(ctx: SimContext, username: string, password: string): string | undefined {
  const user = ctx.seed.users.find((u) => u.username === username);
  if (!user || !sameSecret(user.password, password)) {
    ctx.state.counters.failed_logins++;
    return undefined;
  }
  ctx.state.counters.logins++;
  return issueToken(ctx, username, 'session', ctx.tokenLifetimeMs);
}

export function issueToken(ctx: SimContext, username: string, kind: 'session' | 'api', lifetimeMs: number): string {
  const now = ctx.clock.now();
  // API tokens are JWTs that say when they expire, as TestGen's personal access tokens (unsigned here: the simulator
  // looks them up by value); session tokens are opaque.
  const claims = { sub: username, iat: Math.floor(now / 1000), exp: Math.floor((now + lifetimeMs) / 1000) };
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const random = randomBytes(24).toString('base64url');
  const token = kind === 'api' ? `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.${random}` : random;
  ctx.state.tokens[token] = { username, issued_at: now, expires_at: now + lifetimeMs, revoked: false, kind };
  return token;
}

/** The user behind an `Authorization: Bearer` header; throws 401 otherwise. */
export function authenticate(ctx: SimContext, header: string | undefined, surface: 'v2' | 'api'): SimUser {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) throw unauthorized('Not authenticated');
  const record = ctx.state.tokens[match[1]];
  if (!record || record.revoked || record.expires_at <= ctx.clock.now()) throw unauthorized('Invalid or expired token');
  if (surface === 'api' && ctx.variants.apiAuth === 'separate' && record.kind !== 'api')
    throw unauthorized('Invalid or expired token');
  if (surface === 'v2' && record.kind !== 'session') throw unauthorized('Invalid or expired token');
  const user = ctx.seed.users.find((u) => u.username === record.username);
  if (!user) throw unauthorized('Invalid or expired token');
  return { username: user.username, role: user.role, kitchens: user.kitchens, projects: user.projects };
}

/** Authenticates a request by its bearer and records who it was, for the request log. */
export function authRequest(ctx: SimContext, req: FastifyRequest, surface: 'v2' | 'api'): SimUser {
  const user = authenticate(ctx, req.headers.authorization, surface);
  req.simUser = user.username;
  return user;
}

/**
 * Expires the access and session tokens of one user, or of everyone; or revokes them together with the user's OAuth
 * refresh tokens. Returns how many were affected.
 */
export function invalidateTokens(ctx: SimContext, how: 'expire' | 'revoke', username?: string): number {
  let n = 0;
  const now = ctx.clock.now();
  for (const record of Object.values(ctx.state.tokens)) {
    if (username && record.username !== username) continue;
    if (how === 'expire') record.expires_at = Math.min(record.expires_at, now);
    else record.revoked = true;
    n++;
  }
  if (how === 'revoke')
    for (const record of Object.values(ctx.state.refresh_tokens)) {
      if (username && record.username !== username) continue;
      record.revoked = true;
      record.revoked_at ??= now;
      n++;
    }
  return n;
}

/** Deployed behaviour: an object outside the user's projects is reported missing, so existence is not revealed. */
export function requireProject(user: SimUser, projectCode: string, what: string): void {
  if (!user.projects.includes(projectCode)) throw notFound(what);
}

export function requireWriter(user: SimUser, action: string): void {
  if (user.role === 'viewer') throw forbidden(`role 'viewer' may not ${action}`);
}
