/**
 * How long each profile's credentials last, told before they run out: a gauge (`dataops_credential_expires_in_seconds`,
 * by profile), a warning in the worker's log from WARN_BEFORE_MS before (at start, then hourly), and `dataops auth`.
 * Known for an API token that is a JWT (a TestGen personal access token, up to 2 years); a login never expires; an
 * OAuth refresh token does not say when it does (TestGen's last 30 days from the authorization), so it is named.
 */
import { readFileSync } from 'node:fs';
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
    if (bearer.type === 'oauth')
      return {
        profile,
        credential: 'OAuth refresh token',
        expiresAt: null,
        advice:
          'the service does not say when it expires (TestGen: 30 days after the authorization): renew it before then, or use a personal access token',
      };
    const token = bearer.type === 'static' ? bearer.token : readToken(bearer.path);
    const expiresAt = token === undefined ? null : (tokenExpiresAt(token) ?? null);
    const credential = bearer.type === 'static' ? 'API token' : 'API token file';
    const advice =
      expiresAt === null
        ? null
        : expiresAt <= now
          ? 'expired: issue a new personal access token'
          : expiresAt - now <= WARN_BEFORE_MS
            ? `expires in ${Math.ceil((expiresAt - now) / 3_600_000)} h: issue a new personal access token`
            : null;
    return { profile, credential, expiresAt, advice };
  });
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
    "Time left before a profile's API token expires",
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
