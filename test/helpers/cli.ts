import { Writable } from 'node:stream';
import { runCli } from '../../src/starter.js';

/** A stream that is not a terminal and hands what is written to `append`. */
export const sink = (append: (s: string) => void) =>
  Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        append(chunk.toString());
        done();
      },
    }),
    { isTTY: false },
  ) as unknown as NodeJS.WriteStream;

/** Runs the CLI in process with captured output. */
export async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: sink((s) => (out += s)), err: sink((s) => (err += s)), env });
  return { code, out, err };
}
