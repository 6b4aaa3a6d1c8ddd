/** Turns zod issues into 'path: message' lines, the one format every validation error in the project uses. */
import type { z } from 'zod';
import { nullsAsAbsent } from './nulls.js';

/**
 * One `path: message` line per problem of a zod validation failure; `(input)` when the whole value is wrong. `label`
 * may say more of where a path came from (the CLI names the flag beside the field).
 */
export function issueLines(error: z.ZodError, label: (path: string) => string = (path) => path): string[] {
  return error.issues.map((i) => `${label(i.path.map(String).join('.') || '(input)')}: ${i.message}`);
}

/**
 * A workflow input checked against its schema: the parsed value, or every problem. A missing input is read as `{}`,
 * so its problems name the fields it lacks, and `null` in an optional field as absent (nulls.ts). Shared by the
 * workflows and the Nexus handler, which must agree.
 */
export function checkInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
): { ok: true; data: z.infer<T> } | { ok: false; problems: string[] } {
  const parsed = schema.safeParse(nullsAsAbsent(schema, input ?? {}));
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, problems: issueLines(parsed.error) };
}

/** The one-line message of a refused input: `invalid input of <what>: <problem>; <problem>`. */
export const invalidInputMessage = (what: string, problems: string[]) =>
  `invalid input of ${what}: ${problems.join('; ')}`;
