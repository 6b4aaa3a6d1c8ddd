/**
 * What `dataops schedule` prints where the dev server cannot be made to answer on cue: a trigger whose run is not
 * seen (two triggers within one second), and specs with every part (seconds, skips, offsets, a year, a comment).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calendarText, durationText, scheduleSpecText } from '../../src/cli/schedule-spec.js';
import { triggerText } from '../../src/cli/schedule-trigger.js';

test('a trigger whose run is not seen says so and why it may be, not that one is buffered', () => {
  const text = triggerText('nightly', 'allow_all', { outcome: 'unseen', workflowId: null });
  assert.match(
    text,
    /^triggered nightly: no run seen within 10 s\. A run started in the same second has the workflow id/,
  );
  assert.doesNotMatch(text, /started nightly-run|buffered/);
});

test('a spec with seconds, a skip, an interval with an offset, a year and a comment', () => {
  const range = <U>(start: U, end: U = start, step = 1) => ({ start, end, step });
  const calendar = {
    second: [range(30)],
    minute: [range(0, 59, 15)],
    hour: [range(9, 17)],
    dayOfMonth: [range(1, 31)],
    month: [range('JANUARY' as const), range('JULY' as const)],
    year: [range(2027)],
    dayOfWeek: [range('SUNDAY' as const)],
    comment: 'quarterly',
  };
  assert.equal(calendarText(calendar), 'second 30, cron */15 9-17 * 1,7 0 in 2027 (quarterly)');
  assert.equal(durationText(5_400_000), '1h30m');
  assert.equal(durationText(86_400_000 + 1_500), '1d1s500ms');
  assert.equal(
    scheduleSpecText({
      intervals: [{ every: 3_600_000, offset: 300_000 }],
      skip: [{ ...calendar, second: [range(0)], comment: '' }],
      timezone: 'Europe/Berlin',
    }),
    'every 1h offset 5m, except cron */15 9-17 * 1,7 0 in 2027 (Europe/Berlin)',
  );
});
