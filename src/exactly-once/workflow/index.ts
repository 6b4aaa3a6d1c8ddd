/**
 * Exactly-once writes (docs/design/exactly-once.md), as workflow code calls them: the entry point of the workflow side
 * of src/exactly-once/. The submitter's own workflow type (submitter.ts) is registered by src/workflows/index.ts.
 */
export { stopOrder } from './order-stop.js';
export { asCancelled, cancelRequested, ownJobAfter, settledJob } from './own-job.js';
export { cancelledByUs, cancellingPromptly } from './prompt-cancel.js';
export {
  cancelRemoteJob,
  heartbeatWait,
  leftRunning,
  rootMessage,
  submitAndWait,
  unconfirmedCancel,
  type CancelReason,
  type RemoteCancel,
} from './remote-cancel.js';
export { askId, createOrderUnderLock, submitUnderLock, waitSubmission } from './submission.js';
