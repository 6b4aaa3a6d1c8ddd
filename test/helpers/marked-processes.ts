/**
 * Stopping a peer together with everything it started. A process group is not enough: TestGen's `run-app all` starts
 * its UI, API and scheduler in sessions of their own, and pg_ctl detaches PostgreSQL the same way, so a SIGKILL to
 * the group leaves them running, still holding the test's stdout pipe, and the test file never exits. Every
 * descendant inherits the environment, so a marker variable set at spawn finds them all, wherever they moved.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The pids of the processes whose environment holds name=value (Linux /proc; elsewhere none are found). */
export function markedProcesses(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) return [];
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(wanted) ? [pid] : [];
    } catch {
      return []; // gone meanwhile, or not ours to read
    }
  });
}

function kill(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * After the caller has asked its process to stop: waits up to graceMs for every marked process to go, then kills what
 * is left (SIGKILL) and waits for that too. Returns the pids that had to be killed; throws if any survives SIGKILL.
 */
export async function reapMarkedProcesses(name: string, value: string, graceMs: number): Promise<number[]> {
  for (let waited = 0; waited < graceMs; waited += 250) {
    if (markedProcesses(name, value).length === 0) return [];
    await sleep(250);
  }
  const killed = markedProcesses(name, value);
  kill(killed);
  for (let tries = 0; tries < 40; tries++) {
    // A killed child stays a zombie until its parent reaps it; its environ then reads empty, so it no longer counts.
    if (markedProcesses(name, value).length === 0) return killed;
    await sleep(250);
  }
  throw new Error(`processes ${markedProcesses(name, value).join(', ')} survived SIGKILL`);
}
