/** Every option a command may take: how it is parsed, and what its help says. */
export const OPTIONS = {
  port: { type: 'string', value: 'N', env: 'PORT', help: 'listening port (default 8080)' },
  host: { type: 'string', value: 'ADDRESS', env: 'HOST', help: 'listening address (default 0.0.0.0: every IPv4 address)' },
  db: { type: 'string', value: 'FILE|URL', env: 'STATUSBOT_DB', help: 'SQLite database file (default ./data/statusbot.db), or a postgres:// URL' },
  config: { type: 'string', value: 'FILE', env: 'STATUSBOT_CONFIG', help: 'YAML config file' },
  company: { type: 'string', value: 'NAME', help: 'the company, by name' },
  label: { type: 'string', value: 'L', help: 'what the key is for, shown by key list (default cli)' },
  dead: { type: 'boolean', help: 'only the dead-lettered ones' },
  open: { type: 'boolean', help: 'only the open (unresolved) ones' },
  all: { type: 'boolean', help: 'every feed, also those no company watches' },
  from: { type: 'string', value: 'FILE', help: 'the SQLite database to copy' },
  to: { type: 'string', value: 'URL', help: 'the postgres:// URL of an empty database' },
  guild: { type: 'string', value: 'ID', help: 'register in one Discord guild (at once) instead of globally' },
  limit: { type: 'string', value: 'N', help: 'at most N lines (default 50, at most 200)' },
  before: { type: 'string', value: 'ID', help: 'only what came before the audit event ID' },
  force: { type: 'boolean', help: 'replace FILE if it exists' },
  agent: { type: 'boolean', help: "a probe agent's token (with --region), not an API key" },
  region: { type: 'string', value: 'NAME', help: 'the region a probe agent probes from, such as eu-west' },
  server: { type: 'string', value: 'URL', env: 'STATUSBOT_SERVER', help: 'the statusbot server the agent reports to, such as https://status.example.com' },
  token: { type: 'string', value: 'T', env: 'STATUSBOT_AGENT_TOKEN', help: "the agent's token (statusbot key create --agent)" },
  'block-private-targets': { type: 'boolean', help: "refuse targets on loopback and private addresses (default: the config's probes.block_private_targets)" },
} as const;

export type OptionName = keyof typeof OPTIONS;

export const DEFAULT_DB = './data/statusbot.db';

/** Where the ids that key revoke takes are shown: said by its help and by its mistakes. */
export const SHOWS_IDS = 'statusbot key list --company NAME shows the ids';

/** Where a command writes (process.stdout and process.stderr have what it needs). */
export interface OutputStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** What a command line runs in: the process's own streams and environment, or a test's. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** Where relative paths lead; unset, the process's own working directory (and paths are used as given). */
  cwd?: string;
  /**
   * Ends the process at once, for a stop that cannot wait for what hangs (the
   * process's own io only); without it, the command returns the code instead.
   */
  exit?: (code: number) => void;
}

/** What a command runs with: its operands, its options, and the environment. */
export interface CommandInput {
  /** The words after the command's name. */
  operands: string[];
  env: NodeJS.ProcessEnv;
  stdout: OutputStream;
  stderr: OutputStream;
  /** Writes one line on stdout. */
  out(line: string): void;
  /** Writes one line on stderr. */
  err(line: string): void;
  string(name: OptionName): string | undefined;
  flag(name: OptionName): boolean;
  /** --db, else STATUSBOT_DB, else the default file. */
  dbPath: string;
  /** --config, else STATUSBOT_CONFIG. */
  configFile: string | undefined;
  /** A file path given on the command line, as the working directory of the command line reads it. */
  path(given: string): string;
  /** See CliIo.exit. */
  exit?: (code: number) => void;
}

export interface Command {
  /** One or two words: `serve`, `key create`. */
  name: string;
  /** What follows the name in its usage line: `--company NAME [--label L] [--db FILE|URL]`. */
  synopsis: string;
  /** One line for the general usage. */
  summary: string;
  /** Lines that `statusbot NAME --help` shows below the usage line. */
  details?: string;
  options: readonly OptionName[];
  /** Options of a less common use (key create --agent): taken as `options` are, listed by --help but not by the usage a mistake shows. */
  moreOptions?: readonly OptionName[];
  /** Operands after the name (none unless given). */
  operands?: { min: number; max: number };
  /** The exit code, once the command has ended (serve: once a signal has stopped it). */
  run(input: CommandInput): Promise<number>;
}
