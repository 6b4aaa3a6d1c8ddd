/**
 * When a bearer token says it expires: the `exp` claim of a JWT (TestGen's personal access tokens and its access
 * tokens are JWTs), read without verifying the signature: it is our own credential, read only to say in time that it
 * runs out. Undefined for an opaque token (the simulator's session tokens, a refresh token).
 */
export function tokenExpiresAt(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
