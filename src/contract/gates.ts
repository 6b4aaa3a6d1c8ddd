/**
 * The limits a gate verdict was judged against, from the gates a caller gave: one mapping for the workflow that judges
 * and the CLI that shows a verdict from before contract 0.3. Types only, so the workflow sandbox loads no zod.
 */
import type { AppliedGates } from './workflows.js';

/** `gates` (as a caller writes them, or with defaults applied) as applied limits: each null where none was set. */
export function appliedGates(gates: {
  minScorePercent?: number | undefined;
  maxFailed?: number | undefined;
  maxErrors?: number | undefined;
  warningsAsFailures?: boolean | undefined;
}): AppliedGates {
  return {
    minScorePercent: gates.minScorePercent ?? null,
    maxFailed: gates.maxFailed ?? null,
    maxErrors: gates.maxErrors ?? null,
    warningsAsFailures: gates.warningsAsFailures ?? false,
  };
}
