/** Faults injected into the next N matching requests, for tests of retries, timeouts and ambiguous submissions. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

export const FaultSpec = z
  .object({
    kind: z.enum([
      /** Answer with `status` (5xx by default) in the deployed error envelope. */
      'status',
      /** Answer 429 with a Retry-After header (`retry_after`: seconds, or an HTTP date). */
      'rate_limit',
      /** Close the connection without an answer. */
      'reset',
      /** Hold the request `delay_ms` before handling it (to go past a client's timeout), or until released. */
      'delay',
      /** Answer 200 with a body that is not valid JSON. */
      'malformed_json',
      /** Handle the request, but report `unknown_status` as the job's status. */
      'unknown_status',
      /** Handle the request (a job is created), then close the connection: the response is lost. */
      'drop_after_commit',
      /** Answer `status` with exactly `body` (for schema breaks and odd deployments). */
      'respond',
    ]),
    /** HTTP method to match; any when absent. */
    method: z.string().toUpperCase().optional(),
    /** Path to match: a substring, or a regular expression when it starts with `^`. Any when absent. */
    path: z.string().optional(),
    /** How many matching requests it hits. @default 1 */
    count: z.number().int().positive().default(1),
    /** Let this many matching requests through before it hits (e.g. the apply after a preview). @default 0 */
    skip: z.number().int().nonnegative().default(0),
    /** Status of `status` and `respond` faults. @default 503 */
    status: z.number().int().min(200).max(599).default(503),
    retry_after: z.union([z.number().nonnegative(), z.string()]).default(1),
    delay_ms: z.number().int().nonnegative().default(0),
    unknown_status: z.string().default('quantum_superposition'),
    body: z.unknown().optional(),
  })
  .strict();
export type FaultSpec = z.infer<typeof FaultSpec>;
export type FaultInput = z.input<typeof FaultSpec>;

export interface Fault extends FaultSpec {
  id: string;
  remaining: number;
  hits: number;
  /** Matching requests still to let through. */
  toSkip: number;
}

export class FaultBook {
  private faults: Fault[] = [];
  /** Per fault, the gate that `release` opens: what a `delay` fault holds goes on then. */
  private gates = new Map<string, { opened: Promise<void>; open: () => void }>();

  add(input: FaultInput): Fault {
    const spec = FaultSpec.parse(input);
    const fault: Fault = { ...spec, id: randomUUID(), remaining: spec.count, hits: 0, toSkip: spec.skip };
    this.faults.push(fault);
    return fault;
  }

  /** Takes one hit of the first fault matching the request, if any. */
  take(method: string, path: string): Fault | undefined {
    for (const f of this.faults)
      if (f.remaining > 0 && f.toSkip > 0 && matches(f, method, path)) {
        f.toSkip--;
        return undefined;
      }
    const fault = this.faults.find((f) => f.remaining > 0 && matches(f, method, path));
    if (!fault) return undefined;
    fault.remaining--;
    fault.hits++;
    return fault;
  }

  /** Settles once fault `id` is released: a request it holds goes on then, whatever is left of its delay. */
  released(id: string): Promise<void> {
    return this.gate(id).opened;
  }

  /** Releases fault `id`: the requests it holds go on now, and those it holds later at once. False if unknown. */
  release(id: string): boolean {
    if (!this.faults.some((f) => f.id === id)) return false;
    this.gate(id).open();
    return true;
  }

  private gate(id: string) {
    let gate = this.gates.get(id);
    if (!gate) {
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open };
      this.gates.set(id, gate);
    }
    return gate;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    for (const gate of this.gates.values()) gate.open(); // a held request made its fault's gate when it waited
    this.faults = [];
    this.gates.clear();
  }
}

function matches(f: FaultSpec, method: string, path: string): boolean {
  if (f.method && f.method !== method.toUpperCase()) return false;
  if (!f.path) return true;
  return f.path.startsWith('^') ? new RegExp(f.path).test(path) : path.includes(f.path);
}
