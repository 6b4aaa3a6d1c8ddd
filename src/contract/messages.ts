/** Queries and updates, defined once and imported by the workflows, the starter and the tests. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Progress } from './progress.js';
import type { JobStatusReport } from './types.js';
import type { ApproveInput, DecisionAck, PromotionPreview, RejectInput } from './promotion.js';

/** Live progress of any workflow of this project. */
export const progressQuery = defineQuery<Progress>('progress');

/** The promotion's current preview (null until it exists). */
export const previewQuery = defineQuery<PromotionPreview | null>('preview');

/**
 * The `progress` stage of a promotion waiting for its decision: `preview` then answers the preview that `approve`
 * must name (a new one, and this stage again, when the target changed before an approval was applied).
 */
export const AWAITING_APPROVAL = 'awaiting approval';

/** Approves the named preview; refused by the validator when it names another preview than the current one. */
export const approveUpdate = defineUpdate<DecisionAck, [ApproveInput]>('approve');

/** Rejects the promotion; nothing is applied. */
export const rejectUpdate = defineUpdate<DecisionAck, [RejectInput]>('reject');

/** Sent by our waiting activities when a job's status changes: the live status the `progress` query shows. */
export const jobStatusSignal = defineSignal<[JobStatusReport]>('jobStatus');
