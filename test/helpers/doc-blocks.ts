/**
 * The shell blocks of a document (```sh fences), each with the marker on the line before it (blank lines aside): `<!-- run-by: FILE, … -->`
 * names the files that run its commands, `<!-- needs: WHAT -->` says what this machine lacks to run them.
 */
import { readFileSync } from 'node:fs';
import { root } from './test-command.js';

export interface ShellBlock {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  marker?: { kind: 'run-by'; files: string[] } | { kind: 'needs'; what: string };
  /** Each command: the block's lines without comments, split on `&&`. */
  commands: string[];
}

export function shellBlocks(doc: string, text = readFileSync(`${root}${doc}`, 'utf8')): ShellBlock[] {
  const lines = text.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i]!)) continue;
    let k = i - 1;
    while (k > 0 && lines[k]!.trim() === '') k--; // the formatter puts a blank line between the marker and its fence
    const before = lines[k] ?? '';
    const runBy = /^<!-- run-by: (.+) -->$/.exec(before);
    const needs = /^<!-- needs: (.+) -->$/.exec(before);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.startsWith('```'); j++) body.push(lines[j]!);
    blocks.push({
      doc,
      line: i + 1,
      ...(runBy ? { marker: { kind: 'run-by' as const, files: runBy[1]!.split(/,\s*/) } } : {}),
      ...(needs ? { marker: { kind: 'needs' as const, what: needs[1]! } } : {}),
      commands: body
        .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
        .filter(Boolean)
        .flatMap((l) => l.split('&&').map((c) => c.trim())),
    });
    i = j;
  }
  return blocks;
}

/** A command line's words, as a POSIX shell splits them (single and double quotes; no expansions). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (const m of command.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}
