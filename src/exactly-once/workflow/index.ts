/**
 * Exactly-once writes (docs/design/exactly-once.md), as workflow code calls them: the entry point of the workflow side
 * of src/exactly-once/. The submitter's own workflow type (submitter.ts) is registered by src/workflows/index.ts.
 */
export { stopOrder } from './order-stop.js';
export {
  asCancelled,
  cancelledByUs,
  cancellingPromptly,
  cancelRemoteJob,
  cancelRequested,
  heartbeatWait,
  leftRunning,
  rootMessage,
  unconfirmedCancel,
  type CancelReason,
  type RemoteCancel,
} from './remote-cancel.js';
export { askSubmitter, submitJob } from './submission.js';
export { APPLY_ACTIVITY } from '../messages.js';
