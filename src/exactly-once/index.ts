/**
 * Exactly-once writes (docs/design/exactly-once.md), as activities call them: the entry point of src/exactly-once/.
 * Workflow code calls its workflow side (workflow/index.ts); messages.ts is what both sides and the CLI say.
 */
export { lookUntilSettled, pause, unknownWords } from './lookup.js';
export { applySubmitterId, deploymentsOf, orderSubmitterId, requestIdOf } from './messages.js';
export { orderStopActivities } from './order-stop.js';
export { sendSignal, stillAsking, undoneIfGone } from './requester-gone.js';
export { sendInTurnActivity, type SendFor } from './send-in-turn.js';
export { submissionActivities, submissionWrites, submitter } from './submissions.js';
export {
  outageToleranceOf,
  requester,
  settleAskActivity,
  submitterFor,
  throughSubmitter,
  type Write,
} from './through-submitter.js';
export { recordingRefusal, writeOnce, type Outstanding, type Phase, type Prior } from './write-once.js';
