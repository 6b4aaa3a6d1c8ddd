/**
 * The session manager: logs in, caches the token, refreshes it before it expires, and shares one login in flight
 * among concurrent callers. The token lives in a private field: it is never logged, stringified or inspected.
 */

import { abortable } from './abortable.js';

export interface SessionManagerOptions {
  /** Performs the login; resolves to the token. It runs under no caller's signal (it is shared). */
  login: () => Promise<string>;
  /** Token lifetime. @default 4 hours (spec section 5) */
  lifetimeMs?: number;
  /** Log in again this long before the expiry. @default 5 minutes */
  refreshMarginMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

export interface SessionInfo {
  loggedIn: boolean;
  /** When the current token is taken to expire (ISO), if logged in. */
  expiresAt: string | null;
  logins: number;
}

export class SessionManager {
  #token: string | undefined;
  #issuedAt = 0;
  #inFlight: Promise<string> | undefined;
  #logins = 0;
  readonly #login: () => Promise<string>;
  readonly #lifetimeMs: number;
  readonly #marginMs: number;
  readonly #now: () => number;

  constructor(options: SessionManagerOptions) {
    this.#login = options.login;
    this.#lifetimeMs = options.lifetimeMs ?? 4 * 3_600_000;
    this.#marginMs = options.refreshMarginMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
    if (!(this.#lifetimeMs > 0)) throw new RangeError('lifetimeMs must be positive');
    if (!(this.#marginMs >= 0 && this.#marginMs < this.#lifetimeMs))
      throw new RangeError('refreshMarginMs must be at least 0 and less than lifetimeMs');
  }

  /** A valid token: the cached one, or a fresh login (one in flight, shared) when it is missing or near expiry. */
  async token(signal?: AbortSignal): Promise<string> {
    if (this.#token !== undefined && this.#now() < this.#issuedAt + this.#lifetimeMs - this.#marginMs)
      return this.#token;
    return this.refresh(signal);
  }

  /**
   * Logs in again now (joining a login already in flight). The login is shared, so it runs under no caller's
   * signal: a caller whose signal aborts stops waiting, and the login goes on for the others.
   */
  refresh(signal?: AbortSignal): Promise<string> {
    if (!this.#inFlight) {
      const started = this.#now();
      this.#inFlight = this.#login()
        .then((token) => {
          this.#token = token;
          this.#issuedAt = started;
          this.#logins++;
          return token;
        })
        .finally(() => {
          this.#inFlight = undefined;
        });
    }
    return abortable(this.#inFlight, signal);
  }

  /**
   * Drops `token` after the service refused it (401). Only the token that was refused is dropped, so many callers
   * refused with the same stale token cause one login, not one each.
   */
  invalidate(token: string): void {
    if (this.#token === token) this.#token = undefined;
  }

  info(): SessionInfo {
    return {
      loggedIn: this.#token !== undefined,
      expiresAt: this.#token === undefined ? null : new Date(this.#issuedAt + this.#lifetimeMs).toISOString(),
      logins: this.#logins,
    };
  }

  toJSON(): SessionInfo {
    return this.info();
  }
}
