/**
 * `null` for an optional input field means "absent": callers in other languages send it naturally (a pydantic model
 * dumped as JSON writes its unset optional fields as `null`). Only a field that takes `undefined` and refuses `null`
 * loses its `null`: one that takes `null` keeps it, and free-form values (an order's `parameters`) are not entered.
 * No Node imports: it runs in the worker's input check, the Nexus handler and the workflow sandbox alike.
 */
import type { z } from 'zod';

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

/** The object or union schema inside wrappers (optional, default, nullable, a pipe's input), if any. */
function structureOf(schema: z.ZodType): Def | undefined {
  let def: Def | undefined = defOf(schema);
  for (let depth = 0; def && depth < 16; depth++) {
    if (def.type === 'object' || def.type === 'union') return def;
    const inner: z.ZodType | undefined = def.type === 'pipe' ? def.in : def.innerType;
    def = inner ? defOf(inner) : undefined;
  }
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` with `null` removed from every optional field of `schema` that refuses it, at every depth of objects. */
export function nullsAsAbsent(schema: z.ZodType, value: unknown): unknown {
  if (!isObject(value)) return value;
  const def = structureOf(schema);
  if (def?.type === 'union') {
    // The first option the value fits once its nulls are read as absent; the value as it is when none does.
    for (const option of def.options ?? []) {
      const read = nullsAsAbsent(option, value);
      if (option.safeParse(read).success) return read;
    }
    return value;
  }
  if (def?.type !== 'object' || !def.shape) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const schemaOf = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
    const absent = field === null && schemaOf?.safeParse(undefined).success && !schemaOf.safeParse(null).success;
    if (!absent) out[key] = schemaOf ? nullsAsAbsent(schemaOf, field) : field;
  }
  return out;
}
