/** Child processes for end-to-end tests: the simulator, workers and the CLI, run as users run them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEED_USERS } from '../../src/simulator/index.js';
import { eventually } from './wait.js';

export const dist = (rel: string) => fileURLToPath(new URL(`../../src/${rel}`, import.meta.url));

export { freePort, freePorts } from '../../src/local/free-ports.js';

export interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (null after a signal) once the process has exited. */
  exited: Promise<number | null>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Throws if `child` has exited (or never started), saying how, with the last `tail` characters of what it printed: a
 * wait for a server to be ready calls it on each try, and then fails at once instead of polling a process that is gone.
 */
export function failIfExited(child: ChildProcess | undefined, what: string, output = '', tail = 2_000): void {
  const ended = child ? (child.exitCode ?? child.signalCode) : 'not started';
  if (ended !== null)
    throw new Error(`${what} exited (${ended}) before it was ready${output && `: ${output.slice(-tail)}`}`);
}

/** Starts `command` (node by default) with `args`; its output is kept. */
export function startProcess(args: string[], env: Record<string, string>, command: string = process.execPath): Proc {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * A caller of a simulator process's `/_sim/` controls at `url` (a function, so the url may be known later): sends
 * JSON, fails on an error status, answers the parsed body.
 */
export const simControls =
  (url: () => string) =>
  async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${await res.text()}`);
    return res.json();
  };

/** Runs a process to its end; resolves with its exit code and output. */
export function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  stopAfterMs?: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // A process still running after `stopAfterMs` is stopped (SIGTERM, then SIGKILL), and its output so far returned,
    // so that a test that would otherwise hit its own time limit says where the process was.
    const stop =
      stopAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            out += `\n[still running after ${stopAfterMs} ms: stopped]\n`;
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
          }, stopAfterMs);
    child.once('exit', (code) => {
      clearTimeout(stop);
      resolve({ code, out });
    });
  });
}

/**
 * Runs a node script to its end (or until `stopAfterMs`, see runProcess) with a temporary directory (TMPDIR) of its
 * own, then removes that directory; resolves with the exit code, the output and what the script left in the directory.
 */
export async function runScriptInOwnTmp(
  script: string,
  args: string[] = [],
  stopAfterMs?: number,
): Promise<{ code: number | null; out: string; left: string[] }> {
  const tmp = mkdtempSync(join(tmpdir(), 'own-tmp-'));
  try {
    const { code, out } = await runProcess(process.execPath, [script, ...args], { TMPDIR: tmp }, stopAfterMs);
    return { code, out, left: readdirSync(tmp) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Starts the simulator on a free port with its controls (`env` adds its settings); answers once it listens. */
export async function startSimulatorProcess(env: Record<string, string> = {}): Promise<{ proc: Proc; url: string }> {
  const proc = startProcess([dist('simulator/server.js'), '--port', '0', '--controls'], env);
  const url = await eventually('the simulator to listen', () => {
    const listening = /listening on (http:\/\/\S+)/.exec(proc.output())?.[1];
    if (!listening) failIfExited(proc.child, 'the simulator', proc.output());
    return listening;
  });
  return { proc, url };
}

/**
 * A worker's service settings for the simulator at `url`: its seed admin, in the seed project, declared its targets'
 * only writer (the simulator has no other unless a test makes one).
 */
export const simulatorService = (url: string) => ({
  DATAOPS_BASE_URL: url,
  DATAOPS_USERNAME: SEED_USERS.admin.username,
  DATAOPS_PASSWORD: SEED_USERS.admin.password,
  DATAOPS_PROJECT_CODE: 'DEMO',
  DATAOPS_SOLE_WRITER: 'true',
});

export function startWorkerProcess(env: Record<string, string>): Proc {
  return startProcess([dist('worker.js')], {
    LOG_LEVEL: 'INFO',
    DATAOPS_HEARTBEAT_THROTTLE_MS: '500',
    DATAOPS_SUBMIT_SETTLE_MS: '1500',
    ...env,
  });
}
