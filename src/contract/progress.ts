/** The live progress every workflow answers through its `progress` query. */
import { z } from 'zod';

/** Live progress, answered by the `progress` query of every workflow. */
export const Progress = z.object({
  workflowType: z.string(),
  stage: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  jobs: z.array(
    z.object({
      role: z.string(),
      jobId: z.string(),
      status: z
        .string()
        .nullable()
        .describe(
          'pending once submitted, then as the wait reports it (each change but claimed, at most every 5 s, at most ' +
            'statusReports of them), and the final status when the wait ends; a found job (the generation ' +
            'follow-up) shows the status it was found in; null for a reconciled job until its first report',
        ),
      statusAt: z
        .string()
        .nullable()
        .describe('When that status was seen (ISO): the submission, the report, or the end of the wait'),
      live: z
        .boolean()
        .describe(
          "true while the job's wait will still report changes; false once its reports are spent (the status is " +
            'then as of statusAt, and may have changed since), when statusReports is 0, and after the wait',
        ),
      reconciled: z.boolean(),
      url: z.string().optional().describe("The job's page in the service's UI, where the worker knows one"),
    }),
  ),
  lastStatus: z.string().nullable().describe('The latest status seen of any job, live while a wait runs'),
  polls: z.number().int().describe('Status polls so far, as of the last status report while a wait runs'),
  claims: z.number().int(),
  interrupts: z.number().int(),
  currentWait: z
    .object({
      jobId: z.string(),
      status: z.string(),
      polls: z.number().int(),
      claims: z.number().int(),
      interrupts: z.number().int(),
      at: z.string().nullable(),
    })
    .nullable()
    .describe(
      'The wait under way, as of its last status report (its counts are already in polls, claims and interrupts); ' +
        'null when no wait runs or none has reported yet',
    ),
  orderId: z.string().nullable(),
  remoteCancel: z
    .object({
      jobId: z.string(),
      finalStatus: z.string().describe("The job's last known status; 'unknown' when it could not be read"),
      alreadyTerminal: z.boolean(),
      confirmed: z.boolean().describe('The job was seen terminal after the cancel; false: it may still be running'),
      reason: z.enum(['workflow_cancelled', 'workflow_failed', 'job_stuck']),
      error: z.string().nullable().describe('Why the cancel could not be confirmed'),
    })
    .nullable()
    .describe(
      'Set when the workflow ended while its job ran, and cancelled that job; also when it stopped its order ' +
        '(jobId is then the order id, finalStatus the status of a run still going, else of the first run; ' +
        "confirmed: at least one run of the order was listed and every run was seen terminal; finalStatus 'unknown': " +
        'the stop was refused, its runs could not be read, or none was listed)',
    ),
  stuck: z
    .object({ jobId: z.string(), status: z.string(), forMs: z.number().int(), at: z.string() })
    .nullable()
    .describe('Set when a job held one non-terminal status longer than maxStatusDurationMs'),
  error: z.string().nullable(),
});
export type Progress = z.infer<typeof Progress>;
