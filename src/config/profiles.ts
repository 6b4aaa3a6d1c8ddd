/**
 * The worker's credential profiles for the service: a `/v2` login, a project code and an `/api/v1` bearer per
 * profile, from `DATAOPS_*` (profile `default`) or `DATAOPS_<NAME>_*` variables. Secrets come from variables or
 * `*_FILE` files and are never shown.
 */
import { tokenExpiresAt } from '../api/token-expiry.js';
import { type Env, type Problems, type ReadFile, doc, flag, httpUrl, int, readEnv, secretKey, text } from './env.js';

export interface ProfileConfig {
  /**
   * The `/v2/login` credentials. The password is a secret: from DATAOPS[_<PROFILE>]_PASSWORD or the file named by
   * ..._PASSWORD_FILE. Absent for a deployment without `/v2` (TestGen), which then needs an `apiBearer`.
   */
  credentials?: { username: string; password: string };
  projectCode?: string;
  /** Nothing else submits through the API, with this account, to the targets this profile writes to (see SOLE_WRITER). */
  soleWriter?: boolean;
  /** Bearer for /api/v1 where the deployment issues its own. @default the /v2 session */
  apiBearer?:
    | { type: 'static'; token: string }
    | { type: 'file'; path: string }
    | {
        type: 'oauth';
        tokenUrl: string;
        clientId: string;
        clientSecret?: string;
        refreshToken: string;
        /** The file the refresh token came from (its age tells when the token was issued), when it came from one. */
        refreshTokenFile?: string;
        /** How long the service's refresh tokens last from the authorization. @default 30 days (TestGen's) */
        refreshTokenLifetimeMs: number;
      };
}

/** The variable prefix of a profile: `DATAOPS_` for `default`, else `DATAOPS_<NAME>_` (upper-cased, `-` → `_`). */
export const profilePrefix = (name: string): string =>
  name === 'default' ? 'DATAOPS_' : `DATAOPS_${name.toUpperCase().replace(/-/g, '_')}_`;

/** A profile's variables under its prefix (`DATAOPS_` for `default`, see `profilePrefix`). */
export const profileEnv = (prefix: string) => ({
  [`${prefix}USERNAME`]: doc(text(), "The profile's `/v2/login` user.", {
    default: 'required, unless an `/api/v1` bearer is set',
  }),
  [`${prefix}PASSWORD`]: doc(secretKey(), 'Its password.', { default: 'required with the user' }),
  [`${prefix}PROJECT_CODE`]: doc(
    text(),
    'Its project: lets a submission whose answer was lost be found instead of sent again.',
  ),
  [`${prefix}SOLE_WRITER`]: doc(
    flag(false),
    "`true` declares that, while a send of ours is in flight, nothing else creates a job through the API with this account on this profile's targets, nor an order of their recipes and variations: no other client or person (ours go one at a time: every fleet and profile of the namespace takes turns at one submitter per service deployment and target). A submission whose answer was lost is then taken to be the one new job (or order) on its target. By default only a job carrying the submission's id is taken (test runs, where the deployment keeps their metadata); another new job on the target is named in an `…OutcomeUnknown` failure, never reported as the workflow's.",
  ),
  [`${prefix}API_TOKEN`]: doc(
    secretKey(),
    'A static `/api/v1` bearer (a TestGen personal access token; one already expired is refused at start).',
  ),
  [`${prefix}API_TOKEN_PATH`]: doc(text(), 'A file holding the `/api/v1` bearer, read again after a 401.'),
  [`${prefix}OAUTH_TOKEN_URL`]: doc(
    httpUrl(),
    'An `/api/v1` bearer from an OAuth refresh-token grant (TestGen): its token endpoint. The bearer is renewed before it expires and after a 401.',
  ),
  [`${prefix}OAUTH_CLIENT_ID`]: doc(text(), 'The OAuth client.'),
  [`${prefix}OAUTH_CLIENT_SECRET`]: doc(
    secretKey(),
    "The OAuth client's secret: required, since a public client's refresh token changes at every refresh.",
  ),
  [`${prefix}OAUTH_REFRESH_TOKEN`]: doc(
    secretKey(),
    'The refresh token. From a `_FILE`, its age tells when it was issued.',
  ),
  [`${prefix}OAUTH_REFRESH_TOKEN_DAYS`]: doc(
    int({ fallback: 30, min: 1, max: 3_650 }),
    "How long the service's refresh tokens last; the worker warns (log, gauge, `dataops auth status`) from 7 days before.",
  ),
});

/** The `/api/v1` bearer of a profile: an OAuth refresh grant, a static token or a token file; one at most. */
function readApiBearer(
  prefix: string,
  v: Record<string, unknown>,
  env: Env,
  problems: Problems,
): ProfileConfig['apiBearer'] {
  const get = (key: string) => v[`${prefix}${key}`] as string | undefined;
  const token = get('API_TOKEN');
  const tokenFile = get('API_TOKEN_PATH');
  const tokenUrl = get('OAUTH_TOKEN_URL');
  const clientId = get('OAUTH_CLIENT_ID');
  const clientSecret = get('OAUTH_CLIENT_SECRET');
  const refreshToken = get('OAUTH_REFRESH_TOKEN');
  const oauth = Boolean(tokenUrl || clientId || clientSecret || refreshToken);
  const kinds = [token && 'API_TOKEN', tokenFile && 'API_TOKEN_PATH', oauth && 'OAUTH_*'].filter(Boolean);
  if (kinds.length > 1)
    problems.add(`${prefix}${kinds.join(` / ${prefix}`)}`, 'set one /api/v1 bearer source, not several');
  if (oauth) {
    const days = v[`${prefix}OAUTH_REFRESH_TOKEN_DAYS`] as number;
    for (const [key, value] of [
      ['OAUTH_TOKEN_URL', tokenUrl],
      ['OAUTH_CLIENT_ID', clientId],
      ['OAUTH_REFRESH_TOKEN or _FILE', refreshToken],
    ] as const)
      if (!value) problems.add(`${prefix}${key}`, 'required with the other OAUTH_* settings');
    if (!clientSecret && clientId && refreshToken)
      problems.add(
        `${prefix}OAUTH_CLIENT_SECRET`,
        'required: without it the client is public, and its refresh token changes at every refresh (TestGen ' +
          'revokes the whole chain when a spent one comes back), so a restart or a second worker would present a ' +
          `spent token. Register a confidential client (with a secret), or use a personal access token (${prefix}API_TOKEN)`,
      );
    return {
      type: 'oauth',
      tokenUrl: tokenUrl ?? '',
      clientId: clientId ?? '',
      ...(clientSecret ? { clientSecret } : {}),
      refreshToken: refreshToken ?? '',
      ...(env[`${prefix}OAUTH_REFRESH_TOKEN_FILE`]
        ? { refreshTokenFile: env[`${prefix}OAUTH_REFRESH_TOKEN_FILE`] }
        : {}),
      refreshTokenLifetimeMs: days * 86_400_000,
    };
  }
  if (token) {
    // A personal access token is a JWT that says when it expires: one already past it cannot work, so say so now.
    const expiresAt = tokenExpiresAt(token);
    if (expiresAt !== undefined && expiresAt <= Date.now())
      problems.add(
        `${prefix}API_TOKEN`,
        `the token expired on ${new Date(expiresAt).toISOString()} (its exp claim): issue a new personal access token`,
      );
    return { type: 'static', token };
  }
  if (tokenFile) return { type: 'file', path: tokenFile };
  return undefined;
}

/** The profiles named in `list` (DATAOPS_PROFILES, comma-separated). */
export function readProfiles(
  list: string,
  env: Env,
  read: ReadFile,
  problems: Problems,
): Record<string, ProfileConfig> {
  const profiles: Record<string, ProfileConfig> = {};
  for (const name of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (/^[A-Za-z0-9_-]+$/.test(name)) profiles[name] = readProfile(name, env, read, problems);
    else problems.add('DATAOPS_PROFILES', `profile name '${name}' may use letters, digits, _ and - only`);
  }
  return profiles;
}

export function readProfile(name: string, env: Env, read: ReadFile, problems: Problems): ProfileConfig {
  const prefix = profilePrefix(name);
  const v: Record<string, unknown> = readEnv(profileEnv(prefix), env, problems, read);
  const username = v[`${prefix}USERNAME`] as string | undefined;
  const password = v[`${prefix}PASSWORD`] as string | undefined;
  const apiBearer = readApiBearer(prefix, v, env, problems);
  if (!apiBearer || username || password) {
    // Without a bearer of its own the profile logs in through /v2; a half-given login is always a mistake.
    if (!username) problems.add(`${prefix}USERNAME`, `required for profile '${name}' (or an /api/v1 bearer alone)`);
    if (!password)
      problems.add(
        `${prefix}PASSWORD or ${prefix}PASSWORD_FILE`,
        `required for profile '${name}' (or an /api/v1 bearer alone)`,
      );
  }
  const projectCode = v[`${prefix}PROJECT_CODE`] as string | undefined;
  return {
    ...(username && password ? { credentials: { username, password } } : {}),
    ...(projectCode ? { projectCode } : {}),
    ...(v[`${prefix}SOLE_WRITER`] === true ? { soleWriter: true } : {}),
    ...(apiBearer ? { apiBearer } : {}),
  };
}
