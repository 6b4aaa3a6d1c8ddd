/**
 * A schedule's spec as a person reads it (`dataops schedule describe`): the server keeps a cron expression as a
 * calendar of ranges, which reads back as a page of JSON; this writes it as cron fields again, and an interval as a
 * duration.
 */
import type { CalendarSpecDescription, Range, ScheduleSpecDescription } from '@temporalio/client';
import { DURATION_UNITS_MS } from './parsers.js';

const MONTHS = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
];
const DAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** A name's number in cron (January 1, Sunday 0), or the number itself. */
const numberOf = (names: string[], first: number) => (unit: string | number) =>
  typeof unit === 'number' ? unit : names.indexOf(unit) + first;

/** One cron field: `*` for its whole span, else its ranges (`1-5`, `*\/15`, `0,30`). */
function field<U extends string | number>(ranges: Range<U>[], span: [number, number], num: (u: U) => number): string {
  if (!ranges.length) return '*';
  return ranges
    .map((r) => {
      const [start, end, step] = [num(r.start), num(r.end ?? r.start), r.step || 1];
      const from = start === span[0] && end === span[1] ? '*' : start === end ? `${start}` : `${start}-${end}`;
      return step === 1 ? from : `${from}/${step}`;
    })
    .join(',');
}

/** A calendar as cron's five fields (minute hour day-of-month month day-of-week), with its seconds when not 0. */
export function calendarText(c: CalendarSpecDescription): string {
  const plain = (u: number) => u;
  const seconds = field(c.second, [0, 59], plain);
  const cron = [
    field(c.minute, [0, 59], plain),
    field(c.hour, [0, 23], plain),
    field(c.dayOfMonth, [1, 31], plain),
    field(c.month, [1, 12], numberOf(MONTHS, 1)),
    field(c.dayOfWeek, [0, 6], numberOf(DAYS, 0)),
  ].join(' ');
  const years = c.year.length ? ` in ${field(c.year, [0, 0], plain)}` : '';
  return `${seconds === '0' ? '' : `second ${seconds}, `}cron ${cron}${years}${c.comment ? ` (${c.comment})` : ''}`;
}

/** A duration in the units the CLI's flags take (`1h30m`, `45s`, `250ms`). */
export function durationText(ms: number): string {
  let left = ms;
  let text = '';
  for (const [unit, size] of Object.entries(DURATION_UNITS_MS))
    if (left >= size) {
      text += `${Math.floor(left / size)}${unit}`;
      left %= size;
    }
  return text || '0ms';
}

/** The whole spec on one line: each calendar and interval, the times it skips, and its time zone. */
export function scheduleSpecText(spec: ScheduleSpecDescription): string {
  const times = [
    ...(spec.calendars ?? []).map(calendarText),
    ...(spec.intervals ?? []).map(
      (i) => `every ${durationText(i.every)}${i.offset ? ` offset ${durationText(i.offset)}` : ''}`,
    ),
  ];
  const skip = (spec.skip ?? []).map(calendarText);
  return `${times.join('; ') || 'no times'}${skip.length ? `, except ${skip.join('; ')}` : ''} (${spec.timezone || 'UTC'})`;
}
