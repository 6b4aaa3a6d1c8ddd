/**
 * Where the bearer token of each call comes from: the `/v2/login` session for `/v2` (and for `/api/v1` by default),
 * or, where a deployment issues its own `/api/v1` tokens, a static token, a token file or a callback.
 */
import { readFile } from 'node:fs/promises';
import { AuthenticationFailed } from './errors.js';
import { type OAuthRefreshGrant, OAuthTokenSource } from './oauth.js';
import type { SessionManager } from './session.js';
import type { Transport } from './transport.js';

/** Where the bearer token of the `/api/v1` calls comes from. Deployments differ. */
export type ApiBearer =
  | { type: 'session' }
  | { type: 'static'; token: string }
  | { type: 'file'; path: string }
  | ({ type: 'oauth' } & OAuthRefreshGrant)
  | { type: 'callback'; getToken: (opts: { signal?: AbortSignal; refresh: boolean }) => Promise<string> };

/** The two API surfaces: `/v2` (login, orders) and `/api/v1` (jobs, summaries, definitions). */
export type Surface = 'v2' | 'api';

export class BearerSource {
  /** The OAuth token source, when the `/api/v1` bearer comes from a refresh-token grant. */
  readonly oauth: OAuthTokenSource | undefined;

  constructor(
    private readonly session: SessionManager,
    private readonly apiBearer: ApiBearer,
    transport: Transport,
  ) {
    this.oauth = apiBearer.type === 'oauth' ? new OAuthTokenSource(apiBearer, transport) : undefined;
  }

  private usesSession(surface: Surface): boolean {
    return surface === 'v2' || this.apiBearer.type === 'session';
  }

  /** Whether a 401 can be answered with a fresh token (not for a static token). */
  canRefresh(surface: Surface): boolean {
    return this.usesSession(surface) || this.apiBearer.type !== 'static';
  }

  /** Forgets a token the service refused, so that the next `token()` logs in again. */
  invalidate(surface: Surface, token: string): void {
    if (this.usesSession(surface)) this.session.invalidate(token);
    else this.oauth?.invalidate(token);
  }

  /** The token for a call on `surface`; `refresh` asks for a new one after a 401. */
  async token(surface: Surface, refresh: boolean, signal?: AbortSignal): Promise<string> {
    if (this.usesSession(surface)) return this.session.token(signal);
    const b = this.apiBearer;
    switch (b.type) {
      case 'static':
        return b.token;
      case 'file':
        try {
          return (await readFile(b.path, 'utf8')).trim();
        } catch (err) {
          throw new AuthenticationFailed(`cannot read the API token file ${b.path}: ${(err as Error).message}`, {
            method: 'GET',
            url: b.path,
            cause: err,
          });
        }
      case 'oauth':
        if (!this.oauth) throw new Error('unreachable: an oauth bearer without its token source');
        return this.oauth.token(signal); // after a 401, invalidate() has dropped the refused token
      case 'callback':
        return b.getToken({ signal, refresh });
      default:
        return this.session.token(signal);
    }
  }
}
