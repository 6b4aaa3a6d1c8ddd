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
      status: z.string().nullable(),
      reconciled: z.boolean(),
    }),
  ),
  lastStatus: z.string().nullable().describe('As of the last activity that returned; see README for live status'),
  polls: z.number().int(),
  claims: z.number().int(),
  interrupts: z.number().int(),
  orderId: z.string().nullable(),
  remoteCancel: z
    .object({ jobId: z.string(), finalStatus: z.string(), alreadyTerminal: z.boolean() })
    .nullable()
    .describe('Set when the workflow was cancelled and cancelled its remote job'),
  stuck: z
    .object({ jobId: z.string(), status: z.string(), forMs: z.number().int(), at: z.string() })
    .nullable()
    .describe('Set when a job held one non-terminal status longer than maxStatusDurationMs'),
  error: z.string().nullable(),
});
export type Progress = z.infer<typeof Progress>;
