/**
 * The environment reader every program's configuration module is built on: zod schemas over variables, with
 * defaults and bounds in the schema, and every wrong key reported at once as `KEY: what is wrong`. This folder is
 * the only code that reads `process.env` (lint enforces it); a value that may be a secret is never echoed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

/** Reads a file (injected so that tests can stand in for the file system). */
export type ReadFile = (path: string) => Buffer;

/** The process environment: the default `env` of every loader. */
export function processEnv(): Env {
  return process.env;
}

export const readFromDisk: ReadFile = (path) => readFileSync(path);

/** Thrown when configuration is invalid; lists every wrong key with the reason. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** An unset or empty variable reads as absent. */
const present = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

/**
 * What the settings reference (docs/reference/settings.md, generated) says of a variable: its type and default, set
 * by the builders below, and what it does, set by `doc` where the variable is declared.
 */
export interface SettingDoc {
  type: string;
  default?: string;
  doc?: string;
  /** Read from `KEY` or from the file named by `KEY_FILE` (see `secret`); never shown. */
  secret?: boolean;
}

/** Every documented variable schema, with its SettingDoc. */
export const SETTINGS = z.registry<SettingDoc>();

const typed = <S extends z.ZodType>(schema: S, type: string, fallback?: string | number | boolean): S => {
  SETTINGS.add(schema, { type, ...(fallback !== undefined ? { default: String(fallback) } : {}) });
  return schema;
};

/** Says what a variable does (and, in `over`, a default or type the schema cannot tell), for the reference. */
export function doc<S extends z.ZodType>(schema: S, what: string, over: Partial<SettingDoc> = {}): S {
  SETTINGS.add(schema, { type: 'text', ...SETTINGS.get(schema), doc: what, ...over });
  return schema;
}

const fail = (ctx: z.RefinementCtx, message: string): never => {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
};

/** A free-text variable; absent when unset. */
export const text = () =>
  typed(
    present.transform((v) => v),
    'text',
  );

/** A free-text variable with a default. */
export const textOr = (fallback: string) => orDefault(text(), fallback);

/** The same variable, with a default when it is unset. */
export const orDefault = <T extends string | number | boolean>(
  schema: z.ZodType<T | undefined, unknown>,
  fallback: T,
) =>
  typed(
    schema.transform((v): T => v ?? fallback),
    SETTINGS.get(schema)?.type ?? 'text',
    fallback,
  );

/** A whole number between bounds. */
export const int = (o: { fallback: number; min: number; max: number }) =>
  typed(
    present.transform((raw, ctx) => {
      if (raw === undefined) return o.fallback;
      const n = Number(raw);
      return Number.isInteger(n) && n >= o.min && n <= o.max
        ? n
        : fail(ctx, `expected a whole number from ${o.min} to ${o.max}, got '${raw}'`);
    }),
    `whole number, ${o.min}–${o.max}`,
    o.fallback,
  );

/** One of a fixed set of words (matched as given, or upper-cased with `upper`). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], upper = false) =>
  typed(
    present.transform((raw, ctx): T[number] => {
      if (raw === undefined) return fallback;
      const v = upper ? raw.toUpperCase() : raw;
      return (values as readonly string[]).includes(v)
        ? v
        : fail(ctx, `expected one of ${values.join(', ')}, got '${raw}'`);
    }),
    values.map((v) => `\`${v}\``).join(', '),
    fallback,
  );

/** `true` or `false`. */
export const flag = (fallback: boolean) =>
  typed(
    present.transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return fail(ctx, `expected true or false, got '${raw}'`);
    }),
    '`true` or `false`',
    fallback,
  );

/** `host:port`. */
export const hostPort = () =>
  typed(
    present.transform((v, ctx) => {
      if (v === undefined) return undefined;
      return /^[^\s:/]+:\d{1,5}$/.test(v) ? v : fail(ctx, `expected host:port, got '${v}'`);
    }),
    'host:port',
  );

/**
 * An http(s) URL without credentials. A URL that carries a user or password is refused without echoing it, since
 * the password would land in logs.
 */
export const httpUrl = () =>
  typed(
    present.transform((v, ctx) => {
      if (v === undefined) return undefined;
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        return fail(ctx, `expected an http(s) URL, got '${v.includes('@') ? '(redacted)' : v}'`);
      }
      if (url.username || url.password)
        return fail(ctx, 'must not carry credentials in the URL (the value is not shown); use the _PASSWORD variables');
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return fail(ctx, `expected an http(s) URL, got '${url.protocol}' in '${v}'`);
      return v.replace(/\/+$/, '');
    }),
    'http(s) URL',
  );

/** A path template that must contain a placeholder such as `{job_id}`. */
export const pathTemplate = (placeholder: string) =>
  typed(
    present.transform((raw, ctx) =>
      raw === undefined || (raw.startsWith('/') && raw.includes(placeholder))
        ? raw
        : fail(ctx, `expected a path starting with / and containing ${placeholder}, got '${raw}'`),
    ),
    `path with \`${placeholder}\``,
  );

/** A secret: `readEnv` reads it from `KEY` or from the file named by `KEY_FILE` (see `secret`); never shown. */
export const secretKey = () => {
  const schema = text();
  SETTINGS.add(schema, { type: 'secret', secret: true });
  return schema;
};

/** A file whose contents are read at load time (certificates, secrets). */
export const fileContents = (read: ReadFile) =>
  present.transform((path, ctx) => {
    if (path === undefined) return undefined;
    try {
      return read(path);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return fail(ctx, `cannot read file '${path}' (${reason})`);
    }
  });

/** Collects problems found after the schema, in the same `KEY: reason` form. */
export class Problems {
  readonly list: string[] = [];
  add(key: string, message: string): void {
    this.list.push(`${key}: ${message}`);
  }
  /** Throws ConfigError when anything was wrong. */
  check(): void {
    if (this.list.length) throw new ConfigError(this.list);
  }
}

/**
 * Parses `env` with a schema whose keys are variable names. Problems are added to `problems`, and parsing goes on so
 * that every wrong key is reported. A key that failed reads as undefined: use the values only once
 * `problems.check()` has passed.
 */
export function readEnv<S extends z.ZodRawShape>(
  shape: S,
  env: Env,
  problems: Problems,
  read: ReadFile = readFromDisk,
): { [K in keyof S]: z.output<S[K]> } {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    if (SETTINGS.get(schema)?.secret) {
      out[key] = secret(key, env, read, problems);
      continue;
    }
    const parsed = (schema as z.ZodType).safeParse(env[key]);
    if (parsed.success) out[key] = parsed.data;
    else for (const issue of parsed.error.issues) problems.add(key, issue.message);
  }
  return out as { [K in keyof S]: z.output<S[K]> };
}

/** A secret from `KEY` or from the file named by `KEY_FILE` (trimmed); setting both is a problem. */
function secret(key: string, env: Env, read: ReadFile, problems: Problems): string | undefined {
  const got = readEnv({ [key]: text(), [`${key}_FILE`]: fileContents(read) }, env, problems);
  const direct = got[key] as string | undefined;
  const fromFile = (got[`${key}_FILE`] as Buffer | undefined)?.toString('utf8').trim();
  if (direct !== undefined && fromFile !== undefined) problems.add(`${key} and ${key}_FILE`, 'set only one of them');
  return direct ?? fromFile;
}
