/** The hosts `spillway setup` knows. */
export const HOST_IDS = ['claude-code', 'gemini', 'codex', 'opencode', 'cursor', 'vscode'] as const;

/** One of {@link HOST_IDS}. */
export type HostId = (typeof HOST_IDS)[number];

/** Whether `value` names a host. */
export function isHostId(value: string): value is HostId {
  return (HOST_IDS as readonly string[]).includes(value);
}

/** The absolute paths written into a host's config, so a host started from a desktop launcher (no shell PATH) finds them. */
export interface SpillwayCommand {
  /** Absolute path of the `node` binary. */
  readonly node: string;
  /** Absolute path of the `spillway` entry script. */
  readonly spillway: string;
}

/** Where setup looks and what it writes. */
export interface SetupEnvironment {
  /** The home directory. */
  readonly home: string;
  /** The project directory (project-scoped configs are looked up here). */
  readonly cwd: string;
  /** The environment (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`…). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--config-dir`: the host's user-level config directory instead of its default. */
  readonly configDir?: string | undefined;
  /** What to run. */
  readonly command: SpillwayCommand;
  /** `--max-inline-bytes` for the host, instead of its {@link HostDefinition.cap}. */
  readonly maxInlineBytes?: number | undefined;
  /**
   * `--absolute-paths`: write node's and spillway's absolute paths even into a project file
   * git tracks (by default such a file gets `spillway` found through PATH, so that it stays
   * portable).
   */
  readonly absolutePaths?: boolean | undefined;
  /** spillway's private state directory, where undo records live. Default `$XDG_STATE_HOME/spillway` (else `~/.local/state/spillway`). */
  readonly stateDir?: string | undefined;
}

/** A path into a parsed config: keys and array indexes. */
export type ConfigPath = readonly (string | number)[];

/** How an MCP server entry names its command. */
export type CommandStyle =
  /** `command: "npx", args: ["-y", …]` (Claude Code, Gemini CLI, Codex, Cursor, VS Code). */
  | 'command-args'
  /** `command: ["npx", "-y", …]` (OpenCode). */
  | 'command-array';

/** An output hook setup installs. */
export interface HookSpec {
  /** Where the hook groups live, e.g. `["hooks", "PostToolUse"]`. */
  readonly path: ConfigPath;
  /** The group's `matcher`. */
  readonly matcher: string;
  /** Matchers earlier versions of setup wrote: setup run again replaces one of them with `matcher` in place. */
  readonly formerMatchers?: readonly string[];
  /** Whether a group with this `matcher` (`undefined`: none) runs on `tool`, as the host decides it. */
  readonly covers: (matcher: string | undefined, tool: string) => boolean;
  /** The `spillway hook …` command line. */
  readonly command: string;
}

/**
 * A string setting setup writes, with the small file it names (for Claude Code:
 * `env.CLAUDE_CODE_SHELL_PREFIX` and the script every shell command then runs through), or
 * a block of instructions (for Codex: spillway's block in `AGENTS.md`).
 */
export interface SettingSpec {
  /** Where the setting lives, e.g. `["env", "CLAUDE_CODE_SHELL_PREFIX"]`. */
  readonly path: ConfigPath;
  /** The value to write: the path of {@link SettingSpec.file}. */
  readonly value: string;
  /** What it does, for the change line. */
  readonly purpose: string;
  /** Whether a value found there is one setup wrote (for any cap or install), so setup may update it and undo may remove it. */
  readonly isOurs: (value: unknown) => boolean;
  /** The file the value names, if any: written (mode 0755) before the config, and kept by undo (another config may name it). */
  readonly file?: { readonly path: string; readonly content: string } | undefined;
  /** The file a value found needs, which doctor checks (default: the value, a path); `undefined` when it names none. */
  readonly needs?: ((value: string) => string | undefined) | undefined;
  /** How the change lines name the value, when it is too long to print (an instructions block). */
  readonly label?: string | undefined;
}

/** One config file a host reads. */
export interface ConfigFileSpec {
  /** Absolute path. */
  readonly path: string;
  /** `user` or `project`. */
  readonly scope: 'user' | 'project';
  /** How to parse it: a JSON-with-comments or TOML config, a Markdown instructions file (see `instructionsDocument`), or a file that is spillway's as a whole (see `ownedFileDocument`). */
  readonly format: 'jsonc' | 'toml' | 'markdown' | 'owned';
  /**
   * Setup may create this file to write its setting: `file`, in a directory that exists;
   * `directory`, with its directory too, when the one above that exists. Hook files always
   * may, in a directory that exists.
   */
  readonly createIfMissing?: 'file' | 'directory' | undefined;
  /** Where the MCP server tables are (each an object of name → entry); empty for a hooks-only file. */
  readonly serverTables: (doc: unknown) => readonly ConfigPath[];
  /** How entries name their command. */
  readonly style: CommandStyle;
  /** The hook to install in this file, if any. */
  readonly hook?: HookSpec | undefined;
  /** A setting to write in this file, if any. */
  readonly setting?: SettingSpec | undefined;
  /** The host reads this file as strict JSON and ignores all of it when it has comments or trailing commas. */
  readonly strictJson?: boolean | undefined;
}

/** A host: where its configs are, which cap it gets and why. */
export interface HostDefinition {
  readonly id: HostId;
  /** Its name for people. */
  readonly label: string;
  /** The cap written into every wrapped server (and hook), in UTF-8 bytes. */
  readonly cap: number;
  /** Why that cap. */
  readonly capReason: string;
  /** What setup cannot cover in this host. */
  readonly notCovered: string;
  /**
   * The release of the host, by its npm package, whose behaviour this definition (its files,
   * caps and hook contract) was checked against in a real session; absent for a host that
   * ships no npm package.
   */
  readonly checkedWith?: { readonly npmPackage: string; readonly version: string } | undefined;
  /** The files to look at, given the environment and the cap chosen. */
  files(env: SetupEnvironment, cap: number): readonly ConfigFileSpec[];
  /** Files setup never edits but `diagnoseHost` reads for other tools' hooks (a project's own settings). */
  readonly hookOnlyFiles?: ((env: SetupEnvironment) => readonly ConfigFileSpec[]) | undefined;
}

/** What setup did (or would do) to one file. */
export interface FileReport {
  readonly path: string;
  readonly scope: 'user' | 'project';
  /** `changed`: written (or would be, under a dry run); `unchanged`: nothing to do; `missing`: no such file; `refused`: unparseable, left untouched; `restored`/`removed`: undo results. */
  readonly status: 'changed' | 'unchanged' | 'missing' | 'refused' | 'restored' | 'removed';
  /** One line per change, for people. */
  readonly changes: readonly string[];
  /** Under a dry run: the lines removed and added. */
  readonly diff?: string | undefined;
  /** For `refused`: why. */
  readonly error?: string | undefined;
  /**
   * For `refused`: `CONFIG_REFUSED`, the stable code of a config setup will not touch (it does
   * not parse, is not a regular file, is another user's…), the code `spillway doctor` gives
   * the same file. `error` says which and what to do.
   */
  readonly code?: 'CONFIG_REFUSED' | undefined;
}

/** What setup or undo did. */
export interface SetupReport {
  readonly host: HostId;
  readonly cap: number;
  readonly capReason: string;
  readonly dryRun: boolean;
  readonly files: readonly FileReport[];
}
