/**
 * The kinds of job a workflow submits, listed once for both sides: the activity that submits each (registered as
 * `dataops.<activity>`), the service's job key, and the field of a job that names its target. The activities add how
 * each is sent (src/exactly-once/send-once.ts); the workflows take the activity and the lock id from here.
 */
export const JOB_KINDS = {
  profiling: { activity: 'submitProfilingRun', jobKey: 'run-profile', targetField: 'table_group_id' },
  tests: { activity: 'submitTestRun', jobKey: 'run-tests', targetField: 'test_suite_id' },
  generation: { activity: 'submitTestGeneration', jobKey: 'run-test-generation', targetField: 'test_suite_id' },
} as const;

export type JobKind = keyof typeof JOB_KINDS;

/** The kinds, for a zod enum. */
export const JOB_KIND_NAMES = Object.keys(JOB_KINDS) as [JobKind, ...JobKind[]];

/** The submitting activity of each kind, by its own name. */
export type SubmitActivityName = (typeof JOB_KINDS)[JobKind]['activity'];
