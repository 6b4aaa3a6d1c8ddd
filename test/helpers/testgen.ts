/**
 * TestGen as a test peer: the reference implementation of the quality-job API, installed by
 * scripts/install-testgen.sh. Each test file starts its own TestGen from a copy of the installed demo home, on free
 * ports, and obtains its tokens the way a real client does: OAuth dynamic registration, the login form with PKCE,
 * and the authorization-code grant. Or, with DATAOPS_TESTGEN_URL, it uses a TestGen you run yourself.
 *
 *   DATAOPS_SKIP_PEER=1                   skip the peer tests (each says so); under CI=true they fail instead
 *   DATAOPS_TESTGEN_URL                   a running TestGen (its base, e.g. http://127.0.0.1:8530)
 *   DATAOPS_TESTGEN_USERNAME / _PASSWORD  its login (default: the installed peer's)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { localServersConfig } from '../../src/config/local-servers.js';
import { pinnedVersions } from '../../src/local/package-root.js';
import { reapMarkedProcesses } from './marked-processes.js';
import { installedNeed, type Need } from './needs.js';
import { failIfExited, freePorts } from './processes.js';
import { eventually } from './wait.js';

export interface OAuthGrant {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface TestGenPeer {
  /** Base address; the API is under /api/v1. */
  url: string;
  /** Its UI's address (DATAOPS_TESTGEN_UI_URL for one you run, else its own address). */
  uiUrl: string;
  version: string;
  username: string;
  /** That user's password, for a test that plays the browser's sign-in. */
  password: string;
  /** A fresh OAuth grant (a new client registration and login each call). */
  authorize(): Promise<OAuthGrant>;
  /** A GET or POST against the API with a bearer, for setup and inspection that our client does not cover. */
  api<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, token: string, body?: unknown): Promise<T>;
  /** The demo project's ids. */
  demo: { projectCode: string; tableGroupId: string; testSuiteId: string; definitions: number };
  /** TestGen's own log, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

/**
 * A worker's service settings for `peer` (as `simulatorService` is for the simulator): the API at `baseUrl` (the peer
 * itself, or a proxy in front of it), the demo project, and the OAuth refresh grant `grant`; declared its targets' only
 * writer (TestGen's own scheduler writes as `scheduler`, which no lookup takes).
 */
export const testGenService = (peer: TestGenPeer, grant: OAuthGrant, baseUrl = peer.url) => ({
  DATAOPS_BASE_URL: baseUrl,
  DATAOPS_PROJECT_CODE: peer.demo.projectCode,
  DATAOPS_SOLE_WRITER: 'true',
  DATAOPS_OAUTH_TOKEN_URL: grant.tokenUrl,
  DATAOPS_OAUTH_CLIENT_ID: grant.clientId,
  DATAOPS_OAUTH_CLIENT_SECRET: grant.clientSecret,
  DATAOPS_OAUTH_REFRESH_TOKEN: grant.refreshToken,
});

/** The environment variable that marks every process of one started TestGen. */
const PEER_MARKER = 'DATAOPS_TESTGEN_PEER';

const installDir = () => join(localServersConfig().cacheDir, `testgen-${pinnedVersions().testgen}`);

/** The peer tests' need: TestGen installed by scripts/install-testgen.sh, or one at DATAOPS_TESTGEN_URL. */
export const testGenNeed = (): Need =>
  installedNeed({
    what: `TestGen ${pinnedVersions().testgen} (the quality-job API's reference implementation)`,
    install: 'npm run install-testgen (Python >= 3.11 and PyPI), or set DATAOPS_TESTGEN_URL',
    dir: installDir(),
    skipVar: 'DATAOPS_SKIP_PEER',
    useVar: 'DATAOPS_TESTGEN_URL',
  });

async function request(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** The OAuth 2.1 authorization-code flow with PKCE, as a user's client runs it. */
async function authorize(url: string, username: string, password: string): Promise<OAuthGrant> {
  const redirectUri = 'http://127.0.0.1/callback';
  const reg = await request(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'dataops-temporal peer tests', redirect_uris: [redirectUri] }),
  });
  if (reg.status !== 201) throw new Error(`OAuth registration failed: ${reg.status} ${reg.text}`);
  const client = JSON.parse(reg.text) as { client_id: string; client_secret: string };
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const login = await request(`${url}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({
      username,
      password,
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      state: 'peer',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  });
  const location = login.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (login.status !== 302 || !code) throw new Error(`OAuth login failed: ${login.status}`);
  const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
  const tok = await request(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  if (tok.status !== 200) throw new Error(`OAuth token exchange failed: ${tok.status} ${tok.text}`);
  const t = JSON.parse(tok.text) as { access_token: string; refresh_token: string; expires_in: number };
  return {
    tokenUrl: `${url}/oauth/token`,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    accessToken: t.access_token,
    refreshToken: t.refresh_token,
    expiresIn: t.expires_in,
  };
}

function peerApi(url: string) {
  return async <T>(method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const res = await request(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
    return (res.text ? JSON.parse(res.text) : null) as T;
  };
}

/** Starts a TestGen (or attaches to DATAOPS_TESTGEN_URL) and looks up the demo project. */
export async function startTestGen(): Promise<TestGenPeer> {
  const external = process.env.DATAOPS_TESTGEN_URL?.replace(/\/+$/, '');
  let child: ChildProcess | undefined;
  let home: string | undefined;
  let outputFile: string | undefined;
  const marker = randomUUID(); // in every process TestGen starts: close() finds them all by it
  const output = () => {
    try {
      return outputFile ? readFileSync(outputFile, 'utf8').slice(-20_000) : '';
    } catch {
      return '';
    }
  };
  const close = async () => {
    if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM'); // it stops its own children
    // Then whatever it started that is still there after the grace, in any session, is killed: nothing outlives us.
    if (child) await reapMarkedProcesses(PEER_MARKER, marker, 30_000);
    if (home) rmSync(dirname(home), { recursive: true, force: true });
  };
  try {
    return await startOrAttach();
  } catch (error) {
    await close(); // a TestGen that failed to come up is stopped too
    throw error;
  }

  async function startOrAttach(): Promise<TestGenPeer> {
    let url: string;
    let uiUrl = process.env.DATAOPS_TESTGEN_UI_URL ?? external ?? '';
    let username = process.env.DATAOPS_TESTGEN_USERNAME ?? 'admin';
    let password = process.env.DATAOPS_TESTGEN_PASSWORD ?? '';
    let version = 'external';
    if (external) url = external;
    else {
      const dir = installDir();
      const peer = JSON.parse(readFileSync(join(dir, 'peer.json'), 'utf8')) as {
        username: string;
        password: string;
        version: string;
      };
      ({ username, password, version } = peer);
      home = join(mkdtempSync(join(tmpdir(), 'testgen-')), 'home');
      // cp -a keeps owners: run as root, pgserver runs PostgreSQL as its own user, who owns the data files.
      const copied = spawnSync('cp', ['-a', join(dir, 'template-home'), home], { encoding: 'utf8' });
      if (copied.status !== 0) throw new Error(`copying the TestGen home failed: ${copied.stderr}`);
      const [apiPort, uiPort] = (await freePorts(2)) as [number, number];
      url = `http://127.0.0.1:${apiPort}`;
      uiUrl = `http://127.0.0.1:${uiPort}`;
      const closed = 'http://127.0.0.1:9'; // TestGen's outbound calls (analytics, release check) fail at once
      // Output to a file, not a pipe: a pipe held open by a process that outlives close() would keep this test alive.
      outputFile = join(dirname(home), 'testgen.out');
      const out = openSync(outputFile, 'w');
      child = spawn(join(dir, 'venv', 'bin', 'testgen'), ['run-app', 'all'], {
        detached: true, // its own process group, so the signal in close() does not reach the test runner
        stdio: ['ignore', out, out],
        env: {
          ...process.env,
          [PEER_MARKER]: marker,
          HOME: join(dir, 'user-home'),
          TG_TESTGEN_HOME: home,
          TESTGEN_LOG_FILE_PATH: join(home, 'log'),
          TG_API_PORT: String(apiPort),
          TG_API_HOST: '127.0.0.1',
          TG_UI_PORT: String(uiPort),
          TG_JOB_POLL_INTERVAL: '1',
          TG_ANALYTICS: 'no',
          HTTP_PROXY: closed,
          HTTPS_PROXY: closed,
          http_proxy: closed,
          https_proxy: closed,
          NO_PROXY: '127.0.0.1,localhost,::1',
          no_proxy: '127.0.0.1,localhost,::1',
        },
      });
      closeSync(out);
      await eventually(
        `TestGen to answer on ${url}`,
        async () => {
          failIfExited(child, 'TestGen', output(), 3_000);
          return (await fetch(`${url}/api/v1/health`).catch(() => null))?.ok;
        },
        { tries: 600, delayMs: 250 },
      );
    }
    const api = peerApi(url);
    const first = await authorize(url, username, password);
    const suites = await api<{ items: { test_suite_id: string; table_group_id: string; test_count: number }[] }>(
      'GET',
      '/projects/DEFAULT/test-suites',
      first.accessToken,
    );
    const suite = suites.items[0];
    if (!suite) throw new Error('the TestGen demo project DEFAULT has no test suite (was `testgen quick-start` run?)');
    return {
      url,
      uiUrl,
      version,
      username,
      password,
      authorize: () => authorize(url, username, password),
      api: (method, path, token, body) => api(method, path, token, body),
      demo: {
        projectCode: 'DEFAULT',
        tableGroupId: suite.table_group_id,
        testSuiteId: suite.test_suite_id,
        definitions: suite.test_count,
      },
      log: () => output(),
      close,
    };
  }
}
