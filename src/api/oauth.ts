/**
 * An OAuth 2.1 refresh-token grant as the source of `/api/v1` bearer tokens (TestGen issues 1-hour access tokens
 * and long-lived refresh tokens). Refreshes before expiry and once after a 401, with one refresh in flight shared
 * by every caller; a rotated refresh token is kept. Tokens live only in private fields: never logged or returned.
 */
import { abortable } from './abortable.js';
import { AuthenticationFailed, errorForResponse, parseMaybeJson } from './errors.js';
import type { Transport } from './transport.js';

export interface OAuthRefreshGrant {
  /** The token endpoint, e.g. https://testgen.example/oauth/token. */
  tokenUrl: string;
  clientId: string;
  /** Sent with HTTP Basic (`client_secret_basic`) when set; a public client sends `client_id` in the form. */
  clientSecret?: string;
  refreshToken: string;
}

export interface OAuthTokenSourceOptions {
  /** Refresh this long before the access token expires. @default 60000 */
  refreshMarginMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

export class OAuthTokenSource {
  #access: string | undefined;
  #expiresAt = 0;
  #refreshToken: string;
  #inFlight: Promise<string> | undefined;
  #refreshes = 0;
  readonly #grant: Omit<OAuthRefreshGrant, 'refreshToken'>;
  readonly #transport: Transport;
  readonly #marginMs: number;
  readonly #now: () => number;

  constructor(grant: OAuthRefreshGrant, transport: Transport, options: OAuthTokenSourceOptions = {}) {
    const { refreshToken, ...rest } = grant;
    this.#grant = rest;
    this.#refreshToken = refreshToken;
    this.#transport = transport;
    this.#marginMs = options.refreshMarginMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** How many refreshes have succeeded (for tests and metrics). */
  get refreshes(): number {
    return this.#refreshes;
  }

  /**
   * A valid access token: the cached one, or a refresh when it is missing or near expiry. After a 401 the caller
   * `invalidate`s the refused token first, so many callers refused with the same token cause one refresh, not one
   * each (each refresh revokes the previous access token on TestGen, so extra ones would refuse the others).
   */
  async token(signal?: AbortSignal): Promise<string> {
    if (this.#access !== undefined && this.#now() < this.#expiresAt - this.#marginMs) return this.#access;
    if (!this.#inFlight) {
      // The shared refresh runs under no caller's signal: one caller giving up must not fail the others.
      this.#inFlight = this.#refresh().finally(() => {
        this.#inFlight = undefined;
      });
    }
    return abortable(this.#inFlight, signal);
  }

  /** Forgets an access token the service refused, so that the next `token()` refreshes. */
  invalidate(token: string): void {
    if (this.#access === token) {
      this.#access = undefined;
      this.#expiresAt = 0;
    }
  }

  async #refresh(): Promise<string> {
    const { tokenUrl, clientId, clientSecret } = this.#grant;
    const where = { method: 'POST', url: tokenUrl, auth: true };
    const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: this.#refreshToken };
    if (!clientSecret) form.client_id = clientId;
    const basic = clientSecret ? Buffer.from(`${clientId}:${clientSecret}`).toString('base64') : undefined;
    const started = this.#now();
    const res = await this.#transport.send('POST', '', tokenUrl, {
      form,
      auth: true,
      ...(basic ? { authorization: `Basic ${basic}` } : {}),
    });
    const body = parseMaybeJson(res.text) as Record<string, unknown> | string;
    if (res.status === 400 || res.status === 401) {
      // invalid_grant (revoked or expired refresh token) or invalid_client: refreshing again cannot help.
      const error = typeof body === 'object' && typeof body.error === 'string' ? body.error : '';
      throw new AuthenticationFailed(`OAuth refresh refused: ${res.status}${error ? ` ${error}` : ''}`, {
        status: res.status,
        code: error || undefined,
        ...where,
      });
    }
    if (res.status < 200 || res.status >= 300) throw errorForResponse('POST', tokenUrl, res, { auth: true });
    const access = typeof body === 'object' ? body.access_token : undefined;
    const expiresIn = typeof body === 'object' ? Number(body.expires_in ?? 3600) : NaN;
    if (typeof access !== 'string' || !access || !Number.isFinite(expiresIn))
      throw new AuthenticationFailed('OAuth refresh answered without access_token or expires_in', where);
    if (typeof body === 'object' && typeof body.refresh_token === 'string' && body.refresh_token)
      this.#refreshToken = body.refresh_token; // rotation: the old one may no longer work
    this.#access = access;
    this.#expiresAt = started + expiresIn * 1000;
    this.#refreshes++;
    return access;
  }

  toJSON(): Record<string, unknown> {
    return { tokenUrl: this.#grant.tokenUrl, clientId: this.#grant.clientId };
  }
}
