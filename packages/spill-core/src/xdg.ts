/**
 * The XDG base directories (state, config, data, cache), read one way everywhere: the
 * variable when it holds an absolute path, else its default under the home directory. A
 * relative or empty value is ignored, as the XDG Base Directory specification asks. No Node
 * imports, so that core runs anywhere; paths are POSIX. Its own entry, `@spillway/core/xdg`,
 * so that a process that needs only a directory loads nothing else.
 *
 * @packageDocumentation
 */

/** The base directories spillway uses. */
export type XdgBaseDir = 'state' | 'config' | 'data' | 'cache';

const VARIABLES: Readonly<Record<XdgBaseDir, { readonly variable: string; readonly fallback: string }>> = {
  state: { variable: 'XDG_STATE_HOME', fallback: '.local/state' },
  config: { variable: 'XDG_CONFIG_HOME', fallback: '.config' },
  data: { variable: 'XDG_DATA_HOME', fallback: '.local/share' },
  cache: { variable: 'XDG_CACHE_HOME', fallback: '.cache' },
};

/**
 * The base directory `kind`: `$XDG_<KIND>_HOME` when it is an absolute path, else its
 * default under `home` (`~/.local/state`, `~/.config`, `~/.local/share`, `~/.cache`).
 *
 * @param kind - which base directory
 * @param env - the environment to read the variable from
 * @param home - the home directory
 */
export function xdgBaseDir(kind: XdgBaseDir, env: Readonly<Record<string, string | undefined>>, home: string): string {
  const { variable, fallback } = VARIABLES[kind];
  const value = env[variable];
  if (value !== undefined && value.startsWith('/')) return value;
  return `${home.endsWith('/') ? home.slice(0, -1) : home}/${fallback}`;
}
