/**
 * Where a pipeline's time goes, for ours and the loop alike: from the batch's start to the first job's creation, the
 * jobs themselves (the simulator's created_at to completed_at), the hand-over between them (the first job's
 * completion to the second's creation), and from the second job's completion to the pipeline's end as its caller saw
 * it. The phases add up to each pipeline's time, and the batch's wall time is the longest of those.
 */
import { meanP99 } from './measure.js';

/** The service's record of one job: its ISO timestamps. */
export interface JobTimes {
  created_at: string;
  completed_at: string | null;
}

/** One pipeline, in epoch milliseconds where not ISO: when its batch started, its two jobs, and when it ended. */
export interface Timeline {
  t0: number;
  jobs: [JobTimes, JobTimes];
  endMs: number;
}

const NAMES = ['to the first job', 'first job', 'hand-over', 'second job', 'to the end'] as const;
type Phase = (typeof NAMES)[number];

/** Each phase's durations over the pipelines, in ms. */
export function phasesOf(timelines: Timeline[]): Record<Phase, number[]> {
  const out = Object.fromEntries(NAMES.map((n) => [n, [] as number[]])) as Record<Phase, number[]>;
  for (const { t0, jobs, endMs } of timelines) {
    const [a, b] = jobs.map((j) => ({ created: Date.parse(j.created_at), done: Date.parse(j.completed_at ?? '') }));
    const spans = [a!.created - t0, a!.done - a!.created, b!.created - a!.done, b!.done - b!.created, endMs - b!.done];
    if (spans.every(Number.isFinite)) NAMES.forEach((n, i) => out[n].push(spans[i]!));
  }
  return out;
}

/** One line per N: each phase's mean / p99 in ms, ours against the loop's. */
export function phaseLine(n: number, ours: Timeline[], loop: Timeline[]): string {
  const [o, l] = [phasesOf(ours), phasesOf(loop)];
  return `N = ${n}: ${NAMES.map((name) => `${name} ${meanP99(o[name])} (loop ${meanP99(l[name])})`).join('; ')}`;
}
