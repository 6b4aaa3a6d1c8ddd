/**
 * What `npm run bench:report` writes into docs/benchmarks.md: the tables both benchmarks print, with what was run and
 * where, between two markers. Pure text in, text out, so a test checks it without running a benchmark.
 */
import { table } from '../scripts/markdown.js';

export const BEGIN = '<!-- bench:report begin: written by `npm run bench:report`; do not edit by hand -->';
export const END = '<!-- bench:report end -->';

export interface ReportRun {
  /** What `npm run bench` printed: one row a benchmark, its cells two or more spaces apart. */
  benchOut: string;
  /** What `npm run bench:scale` printed. */
  scaleOut: string;
  /** The bench:scale flags given. */
  scaleArgs: string[];
  commit: string;
  machine: string;
  date: string;
}

/** `npm run bench`'s rows as a markdown table. */
export function benchTable(out: string): string {
  const rows = out
    .split('\n')
    .filter((line) => /\S {2,}\S/.test(line) && !line.startsWith('['))
    .map((line) => line.trim().split(/ {2,}/));
  if (rows.length === 0) throw new Error('npm run bench printed no rows');
  return table(
    ['benchmark', 'measured', 'against', 'ratio'],
    rows.map((r) => [0, 1, 2, 3].map((i) => r[i] ?? '')),
  );
}

/** The summary tables bench:scale prints at its end (each starts `| N |`), and the line saying how jobs ran. */
export function scaleTables(out: string): { conditions: string; tables: string[] } {
  const lines = out.split('\n');
  const conditions = lines.find((l) => l.startsWith('jobs: pending')) ?? '';
  const tables: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('| N |')) continue;
    let j = i;
    while (j < lines.length && lines[j]!.startsWith('|')) j++;
    tables.push(lines.slice(i, j).join('\n'));
    i = j;
  }
  if (tables.length === 0) throw new Error('npm run bench:scale printed no summary table');
  return { conditions, tables };
}

const SCALE_CAPTIONS = [
  'Ours against the plain loop that makes the same calls:',
  'The bound (the least any design that keeps our guarantees can cost) and the Temporal floor, against the loop:',
  'What each pipeline costs, in Temporal Cloud actions as the server counts them, history events and persistence operations:',
];

/** The block between the markers. */
export function renderReport(run: ReportRun): string {
  const scale = scaleTables(run.scaleOut);
  return [
    BEGIN,
    '',
    `Measured ${run.date} at commit \`${run.commit}\` on ${run.machine}.`,
    '',
    '`npm run bench`:',
    '',
    benchTable(run.benchOut),
    '',
    `\`npm run bench:scale -- ${run.scaleArgs.join(' ')}\`${scale.conditions ? ` (${scale.conditions})` : ''}:`,
    ...scale.tables.flatMap((t, i) => ['', SCALE_CAPTIONS[i] ?? '', '', t]),
    '',
    END,
  ].join('\n');
}

/** `doc` with the text between its markers replaced by `block`; a document without both markers is refused. */
export function replaceReport(doc: string, block: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error('docs/benchmarks.md has no bench:report markers to write between');
  return doc.slice(0, from) + block + doc.slice(to + END.length);
}
