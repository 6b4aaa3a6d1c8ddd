/** Turns zod issues into 'path: message' lines, the one format every validation error in the project uses. */
import type { z } from 'zod';

/** One `path: message` line per problem of a zod validation failure; `(input)` when the whole value is wrong. */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(input)'}: ${i.message}`);
}
