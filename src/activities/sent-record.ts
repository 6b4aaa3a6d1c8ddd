/**
 * A send a target's submitter makes records itself there before the request leaves (src/workflows/submitter.ts,
 * `sent`): its heartbeat may not reach Temporal before its worker dies (the SDK throttles it), and a retry that lost
 * the watermark would have to look among every job of the target since a time, where another fleet's job, made
 * minutes before, could be taken for its own. With the record at the submitter, the retry reads the watermark back,
 * or knows that nothing left.
 */
import { Context } from '@temporalio/activity';
import { requestIdOf, sendOfQuery, sentSignal, type Requester } from '../contract/submitter.js';
import { beat } from './keep-alive.js';
import type { Phase, Prior, Sent } from './write-once.js';

export function sentRecord(submitterId: string, submitterRunId: string | undefined, requester: Requester) {
  // By its run: by its id alone, each signal and query would cost the server a read of the current run.
  const handle = Context.current().client.workflow.getHandle(submitterId, submitterRunId);
  const id = requestIdOf(requester);
  return {
    /** Records the phase in the heartbeat and, for a send, at the submitter, before the request leaves. */
    record: async <M>(phase: Phase<M>): Promise<void> => {
      beat(phase);
      if (phase.phase === 'sending') await handle.signal(sentSignal, id, { sentAt: phase.sentAt, mark: phase.mark });
    },
    /**
     * What an earlier attempt left: as its heartbeat says; where that lost its send, as the submitter recorded it, or
     * certainly nothing when the submitter has no record (the request leaves only once it has one).
     */
    prior: async <M>(own: Prior<M>): Promise<Prior<M>> => {
      if (!own.mayHaveSent || own.sending) return own;
      const recorded = await handle.query(sendOfQuery, id);
      return recorded ? { mayHaveSent: true, sending: recorded as Sent<M> } : { mayHaveSent: false };
    },
  };
}
