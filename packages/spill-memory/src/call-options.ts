import { SpillError } from '@spillway/core';

function invalid(message: string): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', message);
}

/** Reads an options bag that may be omitted; anything but an object is refused. */
export function optionsBag(options: unknown, what: string): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw invalid(`${what} options must be an object when given.`);
  return options as Readonly<Record<string, unknown>>;
}

/** The `signal` of an options bag, checked to look like an `AbortSignal`. */
export function signalOf(bag: Readonly<Record<string, unknown>>): AbortSignal | undefined {
  const signal = bag.signal;
  if (signal === undefined) return undefined;
  if (
    typeof signal !== 'object' ||
    signal === null ||
    typeof (signal as { aborted?: unknown }).aborted !== 'boolean' ||
    typeof (signal as { addEventListener?: unknown }).addEventListener !== 'function'
  ) {
    throw invalid('signal must be an AbortSignal when given.');
  }
  return signal as AbortSignal;
}
