// The one warning that says why a store was given up: written once, for `spillway run` (each
// of its routes) and `spillway mcp`, so that every one names each root tried.
import { isSpillError } from '@spillway/core';
import { cliMessage } from './cli-error.js';

/** A fallback root that was tried and refused, and why. */
export interface RefusedRoot {
  readonly path: string;
  readonly error: unknown;
}

/** One failure inside a warning: the CLI's wording and, for a `SpillError`, its stable code. */
export function failureText(error: unknown): string {
  if (isSpillError(error)) return `${cliMessage(error.code, error.message)} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why no store took the output: the configured store's `failure`, then each fallback root
 * tried and refused, in the order tried, each with its own reason.
 */
export function refusalsText(failure: unknown, refused: readonly RefusedRoot[]): string {
  return [failureText(failure), ...refused.map((r) => `the fallback root ${r.path} was refused too: ${failureText(r.error)}`)].join('; ');
}

/** The warning for a store given up: {@link refusalsText}, then `outcome`, what became of the output. */
export function fallbackWarning(failure: unknown, refused: readonly RefusedRoot[], outcome: string): string {
  return `${refusalsText(failure, refused)}: ${outcome}`;
}
