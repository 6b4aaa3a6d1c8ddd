/**
 * Counts the activity attempts that fail, by activity, failure type and whether Temporal will retry: the retries an
 * operator sees on the Prometheus endpoint (`dataops_activity_failures`), beside the SDK's own metrics.
 */
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import { toFailure } from '../activities/errors.js';

export const countFailures: ActivityInterceptorsFactory = (ctx: Context) => {
  const inbound: ActivityInboundCallsInterceptor = {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        const failure = toFailure(err);
        const type = failure instanceof ApplicationFailure ? (failure.type ?? 'Error') : failure.name;
        // A benign failure is the deferrable wait's timer (JobStillRunning), not a problem.
        if (!(failure instanceof ApplicationFailure && failure.category === 'BENIGN'))
          ctx.metricMeter
            .createCounter('dataops_activity_failures', 'attempts', 'Failed activity attempts, by failure type')
            .add(1, {
              activity: ctx.info.activityType,
              type,
              retryable: String(!(failure instanceof ApplicationFailure && failure.nonRetryable)),
            });
        throw err;
      }
    },
  };
  return { inbound };
};
