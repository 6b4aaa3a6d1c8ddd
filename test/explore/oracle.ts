/**
 * The explorer's oracle: what must hold after every seed, judged from the simulator's record of which request created
 * each job and order (its `X-Request-Id`, which our writes carry: `<workflowId>/<runId>/<activityId>`) and from how
 * each workflow ended. A violation fails the seed; the cancel latency is measured (per state the job was in, and from
 * the cancel to the workflow's close) and reported, not failed, until every cancel path is one (the one-path issue).
 */
import { isTerminalJobStatus, isTerminalOrderRunStatus } from '../../src/vocabulary.js';
import { lifeBoundMs, type Ended, type SeedRun } from './run-seed.js';

export interface Verdict {
  violations: string[];
  /**
   * Cancel latencies, ms from the cancel request (or the job's creation, if later) to the job at rest, by state; and
   * from the cancel request to the workflow's close (`closed, …`), by whether it created anything.
   */
  cancelLatency: { state: string; ms: number }[];
}

/** The stated history bounds (docs/design/waiting.md): 50 events a pipeline, 4 more per status report. */
const historyBound = (e: Ended) => 50 + 4 * e.requester.statusReports * (e.requester.kind === 'pipeline' ? 2 : 1);

/** The workflow a request id names (the first segment), if it is one of ours. */
const workflowOf = (requestId: string | null | undefined) => (requestId ? requestId.split('/')[0] : undefined);

interface Created {
  id: string;
  key: string;
  requestId: string;
  createdAt: number;
  /** When it came to rest (service clock), or null if it still runs. */
  restAt: number | null;
  /** Its status when the cancel was asked: what the latency is reported by. */
  stateAt: (t: number) => string;
}

function createdOf(run: SeedRun): Created[] {
  const jobs: Created[] = run.jobs
    .filter((j) => j.request_id)
    .map((j) => ({
      id: j.id,
      key: j.job_key,
      requestId: j.request_id!,
      createdAt: j.created_at,
      restAt: isTerminalJobStatus(j.status) ? (j.completed_at ?? j.created_at) : null,
      stateAt: (t) =>
        j.started_at !== null && t >= j.started_at
          ? 'running'
          : j.claimed_at !== null && t >= j.claimed_at
            ? 'claimed'
            : 'pending',
    }));
  const orders: Created[] = run.orders
    .filter((o) => o.request_id)
    .map((o) => {
      const rest = o.servings.every((s) => isTerminalOrderRunStatus(s.status));
      const ends = o.servings.map((s) => Date.parse((s as { completed_at?: string }).completed_at ?? '') || NaN);
      return {
        id: o.id,
        key: 'order',
        requestId: o.request_id!,
        createdAt: Date.parse(o.created_at),
        restAt: rest ? Math.max(Date.parse(o.created_at), ...ends.filter((x) => !Number.isNaN(x))) : null,
        stateAt: () => 'order',
      };
    });
  return [...jobs, ...orders];
}

/** Judges one seed's run. */
export function judge(run: SeedRun): Verdict {
  const violations: string[] = [];
  const cancelLatency: Verdict['cancelLatency'] = [];
  const created = createdOf(run);
  const bySubmission = new Map<string, Created[]>();
  for (const c of created) bySubmission.set(c.requestId, [...(bySubmission.get(c.requestId) ?? []), c]);
  for (const [id, cs] of bySubmission)
    if (cs.length > 1) violations.push(`submission ${id} created ${cs.length}: ${cs.map((c) => c.id).join(', ')}`);

  for (const e of run.ended) {
    const own = created.filter((c) => workflowOf(c.requestId) === e.workflowId);
    const name = `${e.requester.name} (${e.workflowId})`;
    // One job per kind per workflow: a second one is a send again under another activity.
    for (const key of new Set(own.map((c) => c.key))) {
      const n = own.filter((c) => c.key === key).length;
      if (n > 1) violations.push(`${name} created ${n} ${key} jobs`);
    }
    // Everything it reports as a job or order of its own is one its own submission created.
    for (const other of created.filter((c) => workflowOf(c.requestId) !== e.workflowId))
      if (e.outcome === 'ok' && e.reported.includes(other.id))
        violations.push(`${name} reports ${other.key} ${other.id}, created by ${other.requestId}`);
    for (const j of run.jobs.filter((x) => !x.request_id))
      if (e.outcome === 'ok' && e.reported.includes(j.id))
        violations.push(`${name} reports job ${j.id}, which another caller made (${j.source}, ${j.created_by})`);
    if (e.outcome === 'outlived') violations.push(`${name} outlived its bound of ${lifeBoundMs(e.requester)} ms`);
    // The bound is on the workflow's own events: a workflow task that timed out or failed is Temporal's to retry.
    const ownEvents = e.historyLength - e.retriedTaskEvents;
    if (ownEvents > historyBound(e))
      violations.push(
        `${name}: ${ownEvents} history events of its own (${e.historyLength} in all), over its bound of ${historyBound(e)}`,
      );
    // When it ends, each of its jobs is at rest, or is named in its failure as left running.
    const closedOnService = e.closedAt + run.skewMs;
    const leftAsAsked = e.outcome === 'cancelled' && e.requester.leaveRunning === true;
    // Asked to cancel and leave its job alone, it ends cancelled: not completed with a job that ran on well past the
    // cancel (2 s: the time a cancel may take to reach the workflow).
    const cancelledOnService = (e.cancelAskedAt ?? Infinity) + run.skewMs;
    for (const c of own) {
      const atRest = c.restAt !== null && c.restAt <= closedOnService + 2_000;
      if (!atRest && !(e.outcome === 'failed' && e.reported.includes(c.id)) && !leftAsAsked)
        violations.push(`${name} ended ${e.outcome}, leaving ${c.key} ${c.id} running, unnamed`);
      // Ended cancelled, having cancelled (or never made) what it created: nothing of its own is created after its
      // close, when nobody watches (a request whose workflow said nothing was sent, sent anyway). One that leaves its
      // job alone ends before a send in flight has its answer: its job may come later.
      if (e.outcome === 'cancelled' && !e.requester.leaveRunning && c.createdAt > closedOnService + 1_000)
        violations.push(
          `${name} ended cancelled, and ${c.key} ${c.id} was created after, at +${c.createdAt - closedOnService} ms`,
        );
      if (e.requester.leaveRunning && e.outcome === 'ok' && (c.restAt ?? Infinity) > cancelledOnService + 2_000)
        violations.push(
          `${name} completed with ${c.key} ${c.id}, which ran on after its cancel (cancelRemoteJob false)`,
        );
      if (e.cancelAskedAt !== undefined && e.outcome === 'cancelled' && !e.requester.leaveRunning) {
        const asked = Math.max(e.cancelAskedAt + run.skewMs, c.createdAt);
        // A job at rest before the cancel was asked has no cancel latency.
        if (c.restAt === null || c.restAt >= asked)
          cancelLatency.push({ state: c.stateAt(asked), ms: (c.restAt ?? Infinity) - asked });
      }
    }
    // How long a cancelled workflow took to close after its cancel: with nothing created, nothing holds it up but our
    // own waits (a lookup, a settle window), which the jobs' latency above cannot show.
    if (e.cancelAskedAt !== undefined && e.outcome === 'cancelled')
      cancelLatency.push({
        state: !own.length
          ? 'closed, nothing created'
          : e.requester.leaveRunning
            ? 'closed, its job left running'
            : 'closed, its job created',
        ms: e.closedAt - e.cancelAskedAt,
      });
  }
  return { violations, cancelLatency };
}
