/**
 * How long each profile's credentials last, told before they run out: a gauge (`dataops_credential_expires_in_seconds`,
 * by profile), a warning in the worker's log from WARN_BEFORE_MS before (at start, then hourly), and `dataops auth`.
 * Known for an API token that is a JWT (a TestGen personal access token, up to 2 years), and for an OAuth refresh
 * token kept in a file (its age against the service's refresh-token lifetime); a login never expires.
 */
import { readFileSync, statSync } from 'node:fs';
import type { MetricMeter } from '@temporalio/common';
import { tokenExpiresAt } from '../api/token-expiry.js';
import type { ProfileConfig } from '../config/profiles.js';

export const WARN_BEFORE_MS = 7 * 24 * 3_600_000;

export interface CredentialLifetime {
  profile: string;
  credential: 'login' | 'API token' | 'API token file' | 'OAuth refresh token';
  /** Epoch ms; null when the credential does not say. */
  expiresAt: number | null;
  /** What to do about it, when anything. */
  advice: string | null;
}

/** Each profile's `/api/v1` credential and when it expires, as far as it says. */
export function credentialLifetimes(
  profiles: Record<string, ProfileConfig>,
  now: number = Date.now(),
): CredentialLifetime[] {
  return Object.entries(profiles).map(([profile, p]) => {
    const bearer = p.apiBearer;
    if (!bearer) return { profile, credential: 'login', expiresAt: null, advice: null };
    if (bearer.type === 'oauth') return refreshTokenLifetime(profile, bearer, now);
    const token = bearer.type === 'static' ? bearer.token : readToken(bearer.path);
    const expiresAt = token === undefined ? null : (tokenExpiresAt(token) ?? null);
    const credential = bearer.type === 'static' ? 'API token' : 'API token file';
    const advice = expiresAt === null ? null : adviceFor(expiresAt, now, 'issue a new personal access token');
    return { profile, credential, expiresAt, advice };
  });
}

/** What to do about a credential that expires at `expiresAt`: `renew` when it is past or within WARN_BEFORE_MS. */
function adviceFor(expiresAt: number, now: number, renew: string): string | null {
  if (expiresAt <= now) return `expired: ${renew}`;
  if (expiresAt - now <= WARN_BEFORE_MS) return `expires in ${Math.ceil((expiresAt - now) / 3_600_000)} h: ${renew}`;
  return null;
}

/**
 * An OAuth refresh token is opaque: it lasts `refreshTokenLifetimeMs` from the authorization (TestGen's 30 days, the
 * same for every refresh of its chain). Kept in a file that `dataops auth login` wrote, the file's age tells when
 * that was (a copy that did not keep the time makes it look younger); given inline, nothing does.
 */
function refreshTokenLifetime(
  profile: string,
  bearer: Extract<NonNullable<ProfileConfig['apiBearer']>, { type: 'oauth' }>,
  now: number,
): CredentialLifetime {
  const credential = 'OAuth refresh token';
  const days = bearer.refreshTokenLifetimeMs / 86_400_000;
  const renew = `renew it with \`dataops auth login --out ${bearer.refreshTokenFile ?? '<file>'}\``;
  const writtenAt = bearer.refreshTokenFile === undefined ? undefined : modifiedAt(bearer.refreshTokenFile);
  if (writtenAt === undefined)
    return {
      profile,
      credential,
      expiresAt: null,
      advice: `given inline, it does not say when it was issued (it lasts ${days} days from the authorization): keep it in the file that \`dataops auth login --out <file>\` writes, or use a personal access token`,
    };
  const expiresAt = writtenAt + bearer.refreshTokenLifetimeMs;
  return { profile, credential, expiresAt, advice: adviceFor(expiresAt, now, renew) };
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined; // the configuration says so at start
  }
}

function readToken(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined; // the client says so at its first call
  }
}

/**
 * Sets the gauge and warns (from WARN_BEFORE_MS before) now and every `everyMs`; returns the stop. `warn` gets the
 * message and its fields (never the token).
 */
export function watchCredentialLifetimes(
  profiles: Record<string, ProfileConfig>,
  meter: MetricMeter,
  warn: (message: string, meta: Record<string, unknown>) => void,
  everyMs = 3_600_000,
): () => void {
  const gauge = meter.createGauge(
    'dataops_credential_expires_in_seconds',
    'float',
    's',
    "Time left before a profile's API token or OAuth refresh token expires",
  );
  const check = () => {
    const now = Date.now();
    for (const c of credentialLifetimes(profiles, now)) {
      if (c.expiresAt === null) continue;
      gauge.set(Math.max(0, (c.expiresAt - now) / 1000), { profile: c.profile });
      if (c.advice)
        warn(`the ${c.credential} of profile '${c.profile}' ${c.advice}`, {
          profile: c.profile,
          expiresAt: new Date(c.expiresAt).toISOString(),
        });
    }
  };
  check();
  const timer = setInterval(check, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
