/**
 * The standalone simulator process's configuration (`npm run simulator`): where it listens, its seed and state
 * files, and whether it serves the test controls. Flags win over the environment.
 */
import { SimVariantsInput, type SimVariants } from '../simulator/context.js';
import { type Env, Problems, doc, flag, int, processEnv, readEnv, text, textOr } from './env.js';

export interface SimulatorProcessConfig {
  /** @default $SIM_PORT, else 8700 */
  port: number;
  /** @default $SIM_HOST, else 127.0.0.1 */
  host: string;
  /** @default $SIM_SEED_FILE, else the built-in DEMO project */
  seedFile?: string;
  /** @default $SIM_STATE_FILE, else state in memory */
  stateFile?: string;
  /** Serve the test controls under /_sim/. @default $SIM_CONTROLS, else false */
  controls: boolean;
  /** Deployment variants, as JSON (e.g. `{"listingTargets": true}`). @default $SIM_VARIANTS, else TestGen 5.134's */
  variants: Partial<SimVariants>;
}

export interface SimulatorFlags {
  port?: string;
  host?: string;
  seedFile?: string;
  stateFile?: string;
  controls?: boolean;
  variants?: string;
}

/** The simulator's variables (each has a flag of `dataops-simulator` too, which wins). */
export const simulatorEnv = {
  SIM_PORT: doc(int({ fallback: 8700, min: 0, max: 65535 }), 'The port it listens on (`0`: any free one).'),
  SIM_HOST: doc(textOr('127.0.0.1'), 'The address it listens on.'),
  SIM_SEED_FILE: doc(text(), 'A JSON seed of projects, suites and definitions.', {
    default: 'the built-in DEMO project',
  }),
  SIM_STATE_FILE: doc(text(), 'Where its state is kept across restarts.', { default: 'in memory' }),
  SIM_CONTROLS: doc(flag(false), 'Serve the test controls under `/_sim/` (fault injection, job records).'),
  SIM_VARIANTS: doc(
    text(),
    'Deployment variants as JSON, e.g. `{"listingTargets": true}` (docs/design/simulator.md).',
    { default: "TestGen 5.134's" },
  ),
};

/** Reads the variants JSON, naming every unknown key or bad value. */
function readVariants(json: string | undefined, problems: Problems): Partial<SimVariants> {
  if (json === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    problems.add('SIM_VARIANTS', 'must be a JSON object, e.g. {"listingTargets": true}');
    return {};
  }
  const parsed = SimVariantsInput.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const i of parsed.error.issues) problems.add('SIM_VARIANTS', `${i.path.join('.') || '(value)'}: ${i.message}`);
  return {};
}

export function loadSimulatorConfig(flags: SimulatorFlags = {}, env: Env = processEnv()): SimulatorProcessConfig {
  const problems = new Problems();
  const v = readEnv(
    simulatorEnv,
    {
      ...env,
      ...(flags.port !== undefined ? { SIM_PORT: flags.port } : {}),
      ...(flags.host !== undefined ? { SIM_HOST: flags.host } : {}),
      ...(flags.seedFile !== undefined ? { SIM_SEED_FILE: flags.seedFile } : {}),
      ...(flags.stateFile !== undefined ? { SIM_STATE_FILE: flags.stateFile } : {}),
      ...(flags.controls !== undefined ? { SIM_CONTROLS: String(flags.controls) } : {}),
      ...(flags.variants !== undefined ? { SIM_VARIANTS: flags.variants } : {}),
    },
    problems,
  );
  const variants = readVariants(v.SIM_VARIANTS, problems);
  problems.check();
  return {
    port: v.SIM_PORT,
    host: v.SIM_HOST,
    ...(v.SIM_SEED_FILE ? { seedFile: v.SIM_SEED_FILE } : {}),
    ...(v.SIM_STATE_FILE ? { stateFile: v.SIM_STATE_FILE } : {}),
    controls: v.SIM_CONTROLS,
    variants,
  };
}
