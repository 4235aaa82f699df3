/** The environment variables that decide colour (any environment object will do). */
export interface ColorEnv {
  readonly [name: string]: string | undefined;
  readonly NO_COLOR?: string | undefined;
  readonly FORCE_COLOR?: string | undefined;
  readonly TERM?: string | undefined;
}

/**
 * Decides whether output to a stream may carry ANSI colour. `FORCE_COLOR` wins when set
 * (`0` or `false` turns colour off, anything else on), as in Node itself; otherwise a
 * non-empty `NO_COLOR` turns it off; otherwise colour needs a TTY whose `TERM` is not
 * `dumb`.
 */
export function colorEnabled(isTTY: boolean, env: ColorEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

/** The few styles the CLI uses; each is the identity when colour is off. */
export interface Style {
  /** Whether these styles emit escapes at all. */
  readonly enabled: boolean;
  /** Errors. */
  readonly red: (text: string) => string;
  /** Warnings. */
  readonly yellow: (text: string) => string;
  /** Line numbers in grep output. */
  readonly green: (text: string) => string;
  /** Line numbers in read output, hints. */
  readonly dim: (text: string) => string;
  /** Headings. */
  readonly bold: (text: string) => string;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const identity = (text: string): string => text;

/** Styles for a stream, given whether colour is enabled for it. */
export function makeStyle(enabled: boolean): Style {
  if (!enabled) {
    return { enabled, red: identity, yellow: identity, green: identity, dim: identity, bold: identity };
  }
  return { enabled, red: sgr(31, 39), yellow: sgr(33, 39), green: sgr(32, 39), dim: sgr(2, 22), bold: sgr(1, 22) };
}
