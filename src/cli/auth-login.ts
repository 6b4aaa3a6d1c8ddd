/**
 * `dataops auth login`: the OAuth 2.1 authorization-code flow with PKCE, as a user's own client runs it, so that
 * renewing the worker's refresh token is one command. The server's endpoints come from its metadata
 * (`/.well-known/oauth-authorization-server`); the client is confidential (given, or registered with this redirect);
 * the user opens the printed URL and signs in; the redirect is received on 127.0.0.1; the code is exchanged; the
 * refresh token (and a registered client's secret) is written to a file of mode 0600. Neither is ever printed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { UsageError } from './parsers.js';

export interface LoginOptions {
  baseUrl: string;
  /** A confidential client already registered with this redirect (`http://127.0.0.1:<port>/callback`). */
  client?: { id: string; secret: string };
  /** Or: register one under this name. */
  register?: string;
  /** Where the refresh token is written. */
  out: string;
  port: number;
  timeoutMs: number;
  say: (line: string) => void;
}

export interface LoginResult {
  tokenUrl: string;
  clientId: string;
  refreshTokenFile: string;
  /** Where a registered client's secret was written. */
  clientSecretFile?: string;
}

interface Metadata {
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
}

async function json<T>(url: string, init: RequestInit, what: string): Promise<T> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  // An error body may echo what was sent; only the status and the OAuth error code are shown.
  if (!res.ok) {
    const code = /"error"\s*:\s*"([\w.-]+)"/.exec(text)?.[1];
    throw new Error(`${what} answered ${res.status}${code ? ` ${code}` : ''} (${url})`);
  }
  return JSON.parse(text) as T;
}

const writeSecret = (path: string, value: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
};

/** Waits for the browser's redirect to the callback; answers the code once `state` matches. */
function receiveCode(port: number, state: string, timeoutMs: number): { code: Promise<string>; ready: Promise<void> } {
  let done: (code: string) => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const code = new Promise<string>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const got = url.searchParams.get('code');
    if (url.searchParams.get('state') !== state || !got) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('This sign-in does not belong to this login.');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in: you can close this tab.');
    done(got);
  });
  const timer = setTimeout(() => fail(new Error(`no sign-in within ${timeoutMs / 1000} s`)), timeoutMs);
  const ready = new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new UsageError(`--port ${port}: ${err.message}`)));
    server.listen(port, '127.0.0.1', resolve);
  });
  void code
    .finally(() => {
      clearTimeout(timer);
      server.close();
    })
    .catch(() => undefined);
  return { code, ready };
}

export async function authorizationCodeLogin(o: LoginOptions): Promise<LoginResult> {
  const base = o.baseUrl.replace(/\/+$/, '');
  const meta = await json<Metadata>(`${base}/.well-known/oauth-authorization-server`, {}, 'the server metadata');
  const redirectUri = `http://127.0.0.1:${o.port}/callback`;
  let client = o.client;
  let clientSecretFile: string | undefined;
  if (!client) {
    if (!o.register) throw new UsageError('give --client-id with --client-secret-file, or --register NAME');
    if (!meta.registration_endpoint) throw new UsageError('--register: the server has no registration endpoint');
    const reg = await json<{ client_id: string; client_secret?: string }>(
      meta.registration_endpoint,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: o.register, redirect_uris: [redirectUri] }),
      },
      'the client registration',
    );
    if (!reg.client_secret)
      throw new Error('the server registered a public client: the worker needs a confidential one');
    client = { id: reg.client_id, secret: reg.client_secret };
    clientSecretFile = `${o.out}.client-secret`;
    writeSecret(clientSecretFile, client.secret);
  }
  const verifier = randomBytes(48).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const { code, ready } = receiveCode(o.port, state, o.timeoutMs);
  await ready;
  const url = new URL(meta.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  o.say(`Open this URL in a browser and sign in:\n${url.href}`);
  const tokens = await json<{ refresh_token?: string }>(
    meta.token_endpoint,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: await code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }).toString(),
    },
    'the token exchange',
  );
  if (!tokens.refresh_token) throw new Error('the token exchange answered no refresh token');
  writeSecret(o.out, tokens.refresh_token);
  return {
    tokenUrl: meta.token_endpoint,
    clientId: client.id,
    refreshTokenFile: o.out,
    ...(clientSecretFile ? { clientSecretFile } : {}),
  };
}
