/**
 * Markdown the generated documents share: a table (pipes in cells escaped, line breaks folded), and the rows of a
 * section that an earlier section did not show already, for pages whose sections repeat rows (the job options).
 */

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
const row = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;

export const table = (head: string[], rows: string[][]): string =>
  [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)].join('\n');

/**
 * The rows of section `title` not shown the same in an earlier one, and, for those that were, their first cells by the
 * section that showed them. `seen` maps each row shown to its section, across the page.
 */
export function unseenRows(
  rows: string[][],
  title: string,
  seen: Map<string, string>,
): { rows: string[][]; shownIn: Map<string, string[]> } {
  const shownIn = new Map<string, string[]>();
  const fresh = rows.filter((r) => {
    const earlier = seen.get(JSON.stringify(r));
    if (earlier === undefined) return true;
    shownIn.set(earlier, [...(shownIn.get(earlier) ?? []), r[0]!]);
    return false;
  });
  for (const r of fresh) seen.set(JSON.stringify(r), title);
  return { rows: fresh, shownIn };
}
