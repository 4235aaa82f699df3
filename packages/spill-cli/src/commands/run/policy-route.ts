import { randomUUID } from 'node:crypto';
import type { SpillEvent, SpillSpilledEvent } from '@spillway/policy';
import { exitCodeOf, runChild, type ChildOutcome } from '../../child.js';
import { refusalsText } from '../../fallback-warning.js';
import { failureText, loadPolicy, show, type RouteInput } from './shared.js';

/**
 * The policy-stream route, for a backend that stores text only: the output is decoded as
 * UTF-8 and pushed through the policy's stream, which holds the preview budget in memory
 * and streams the rest into `saveTextStream` once the cap is crossed.
 */
export async function runThroughPolicy(input: RouteInput): Promise<void> {
  const { ctx, backend, file, args, options, sessionId, toolName, onSpawn } = input;
  let spilled: SpillSpilledEvent | undefined;
  const problems: Exclude<SpillEvent, SpillSpilledEvent>[] = [];
  const { createSpillPolicy } = await loadPolicy();
  const policy = createSpillPolicy({
    backend,
    maxInlineBytes: options.maxInlineBytes,
    noticeReader: 'spillway-cli', // a shell reads back with the spillway commands
    skipTools: [],
    onEvent: (event) => {
      if (event.type === 'spilled') spilled = event;
      else problems.push(event);
    },
  });
  const stream = policy.stream({ toolName, callId: randomUUID(), sessionId });
  let outcome: ChildOutcome;
  try {
    outcome = await runChild(file, args, { onText: (text) => stream.push(text), onSpawn });
  } catch (error) {
    await stream.abort(error);
    throw error;
  }
  const result = await stream.finish({ isError: exitCodeOf(outcome) !== 0 });
  const text = result.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
  const where = ctx.root(options).path;
  for (const event of problems) await ctx.warn(describeProblem(event, where, options.maxInlineBytes, input.givenUp));
  if (spilled !== undefined) {
    await ctx.info(`spilled ${String(spilled.bytes)} bytes (${String(spilled.shownBytes)} shown) to ${spilled.locator} in ${spilled.ms.toFixed(0)} ms`);
  }
  const failed = problems.find((event) => SAVE_FAILURES.has(event.reason));
  const storeError = failed === undefined ? {} : { storeError: { error: failed.error ?? failed.reason } };
  await show(input, spilled === undefined ? { text, ...storeError } : { text, locator: spilled.locator, omittedBytes: spilled.bytes - spilled.shownBytes, storedBytes: spilled.bytes }, outcome);
}

/** The reasons of a `kept` or `truncated` event that mean the store failed (not, say, a cap too small for the notice). */
const SAVE_FAILURES: ReadonlySet<string> = new Set(['save-threw', 'save-rejected', 'malformed-ref', 'timeout']);

/** One warning line for a spill that did not happen as it should have; `givenUp`, when the store and the fallback roots were refused before the run. */
function describeProblem(event: Exclude<SpillEvent, SpillSpilledEvent>, root: string, cap: number, givenUp: RouteInput['givenUp']): string {
  const size = `the output (${String(event.bytes)} bytes)`;
  if (event.type === 'truncated') {
    if (event.reason === 'notice-too-large') {
      // Stored, but neither its notice nor the whole output fits: the person at the
      // terminal gets the locator the model could not be given.
      const why = event.error === undefined ? '' : `: ${failureText(event.error)}`;
      return `--max-inline-bytes ${String(cap)} cannot hold the spill notice and ${size} could not be read back, so only its head and tail are shown; the full output is stored at ${event.locator ?? 'an unknown locator'}${why}`;
    }
    return `${size} could not be stored under ${root}, so only its head and tail are shown: ${failureText(event.error ?? event.reason)}`;
  }
  if (event.reason === 'notice-too-large') {
    // The policy kept the original, as apply does; an artifact it stored first and could
    // not delete is left for `spillway gc`.
    const leftover = event.locator !== undefined && event.removed !== true ? ` (its stored copy ${event.locator} is left for spillway gc)` : '';
    return `--max-inline-bytes ${String(cap)} cannot hold the spill notice, so ${size} is printed in full${leftover}.`;
  }
  const why = givenUp === undefined ? failureText(event.error ?? event.reason) : refusalsText(givenUp.failure, givenUp.refused);
  return `${size} could not be spilled under ${root} and is printed in full: ${why}`;
}
