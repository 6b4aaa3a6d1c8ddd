/**
 * Which failures of a requester's question to its submitter (src/exactly-once/through-submitter.ts) are asked again
 * instead of failing the requesting activity's attempt: the shapes Temporal's clients gave, as measured, and the
 * failures that must still end the attempt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryNotRegisteredError, ServiceError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { unansweredNow } from '../../src/exactly-once/through-submitter.js';

/** As the client wraps a failed query: its own message, the transport's failure as the cause. */
const failedQuery = (cause: string) =>
  new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(cause), { code: 1 }) });

test('a question the server or the worker client could not answer now is asked again', () => {
  for (const cause of [
    'consistent query buffer is full, cannot accept new consistent queries',
    'query timed out before a worker could process it',
    'Timeout expired', // a native connection's own deadline, at the server's 30 s
    'h2 protocol error: http2 error', // a native connection's stream reset under load
  ])
    assert.equal(unansweredNow(failedQuery(cause)), true, cause);
});

test('any other failure of the question ends the attempt', () => {
  for (const err of [
    failedQuery('permission denied'),
    failedQuery('an update with a timeout expired meanwhile'), // says it, but is not the client's own timeout
    new QueryNotRegisteredError('unknown queryType place', 3),
    new WorkflowNotFoundError('not found', 'dataops-submit/x', undefined),
    new Error('Timeout expired somewhere else, not a cause of a failed query'),
  ])
    assert.equal(unansweredNow(err), false, String(err));
});
