import { SHOWS_IDS } from './command.js';
import type { Command, CommandInput } from './command.js';
import { JOB_NAMES } from '../config/job-names.js';
import { STOP_DEADLINE_MS, STOP_GRACE_MS } from '../stop-times.js';

/**
 * A command's work, loaded when it runs: the usage, `--help` and a mistake
 * on the command line load none of it (the server, the database drivers, the
 * domain), so that they answer at once.
 */
const loaded =
  <M>(load: () => Promise<M>, run: (module: M) => (input: CommandInput) => Promise<number>): Command['run'] =>
  async (input) =>
    run(await load())(input);

/** Every command, in the order the usage lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    synopsis: '[--port N] [--host ADDRESS] [--db FILE|URL] [--config FILE]',
    summary: 'serve the API (the default command)',
    details: [
      'Applies the config (if any) and pending migrations, then serves /api/v2, the status pages and chat.',
      'On a database without companies and without companies in the config, it makes a demo company and prints its key once',
      '(not with demo: false in the config). Its start lines name the home page, the demo page and the API reference.',
      `SIGTERM or SIGINT stops it: work under way gets ${STOP_GRACE_MS / 1000} s to finish, then it exits 0;`,
      `after ${STOP_DEADLINE_MS / 1000} s, or at a second signal, it exits 1 at once, naming what still ran.`,
      "STATUSBOT_REGION names the region its probes count for (default: the config's region, else local).",
    ].join('\n'),
    options: ['port', 'host', 'db', 'config'],
    run: loaded(
      () => import('./serve-command.js'),
      (m) => m.runServe,
    ),
  },
  {
    name: 'migrate',
    synopsis: '[--db FILE|URL]',
    summary: 'apply pending database migrations',
    details: 'Migrations are forward-only; serve and every other command also apply them. A missing SQLite file is created.',
    options: ['db'],
    run: loaded(
      () => import('./migrate-command.js'),
      (m) => m.runMigrate,
    ),
  },
  {
    name: 'apply',
    synopsis: '--config FILE [--db FILE|URL]',
    summary: 'apply a config file to the database',
    details: [
      'Creates what the file declares and is missing, updates what differs, in one transaction; never deletes,',
      'but for demo: false, which removes the demo company and the demo services with all they hold.',
      'Prints what it added, changed and removed, by kind, or "no changes": applying the same file twice changes nothing.',
      "A subscriber address that unsubscribed through a mail's link is not signed up again: it is listed as suppressed.",
      'A running server sees the changes at once.',
      'Warns of a company whose regions quorum is more than its regions can meet (this server and its agent regions): its monitors could never go down.',
    ].join('\n'),
    options: ['config', 'db'],
    run: loaded(
      () => import('./apply-command.js'),
      (m) => m.runApply,
    ),
  },
  {
    name: 'key create',
    synopsis: '--company NAME [--label L] [--db FILE|URL]',
    summary: "issue an API key, or a probe agent's token (printed once)",
    details: [
      'Prints the key alone on stdout (for scripts); statusbot keeps only its hash, so it is never shown again.',
      "With --agent --region NAME: a probe agent's token, for statusbot agent probing the company's monitors from that region; it opens",
      'the agent endpoints only, and key list, key revoke and agents list show it.',
    ].join('\n'),
    options: ['company', 'label', 'db'],
    moreOptions: ['agent', 'region'],
    run: loaded(
      () => import('./key-commands.js'),
      (m) => m.runKeyCreate,
    ),
  },
  {
    name: 'key list',
    synopsis: '--company NAME [--db FILE|URL]',
    summary: "a company's keys: id, label, prefix, created, last used, revoked",
    details: [
      'One line per key, oldest first. The prefix is the start of a key statusbot issued ("-" for keys from a config).',
      'Last use is written by the servers at most once a minute.',
    ].join('\n'),
    options: ['company', 'db'],
    run: loaded(
      () => import('./key-commands.js'),
      (m) => m.runKeyList,
    ),
  },
  {
    name: 'key revoke',
    synopsis: 'ID [--db FILE|URL]',
    summary: 'revoke an API key: every server refuses it from its next request',
    details: `${SHOWS_IDS}. A revoked key stays listed, and a config that names it does not bring it back.`,
    options: ['db'],
    operands: { min: 1, max: 1 },
    run: loaded(
      () => import('./key-commands.js'),
      (m) => m.runKeyRevoke,
    ),
  },
  {
    name: 'agents list',
    synopsis: '[--company NAME] [--db FILE|URL]',
    summary: 'probe agents: region, last report, and whether they are stale',
    details: [
      'One line per agent token: id (as key revoke takes it), company, region, last report, and reporting, stale or revoked.',
      "An agent is stale without a report for two intervals of its company's most frequent monitor (at least 20 s):",
      'its results then count toward no quorum. "dropped N": results it dropped, its buffer full while the server was away.',
      'Warns, on stderr, of each company with fewer regions reporting (this server and its live agents) than its quorum: its monitors cannot go down.',
    ].join('\n'),
    options: ['company', 'db'],
    run: loaded(
      () => import('./agents-command.js'),
      (m) => m.runAgentsList,
    ),
  },
  {
    name: 'audit list',
    synopsis: '[--company NAME] [--limit N] [--before ID] [--db FILE|URL]',
    summary: 'who changed what: the audit trail, newest first',
    details: [
      'One line per change: id, time, company, actor, action, target, request id, changed fields (JSON).',
      'Actors: api_key:<key id>, slack:<team>/<user>, discord:<guild>/<user>, cli, job:<name>, page (a status page visitor).',
      'Every company unless --company; --before ID pages back from an earlier list.',
    ].join('\n'),
    options: ['company', 'limit', 'before', 'db'],
    run: loaded(
      () => import('./audit-command.js'),
      (m) => m.runAuditList,
    ),
  },
  {
    name: 'incidents list',
    synopsis: '[--open] [--company NAME] [--db FILE|URL]',
    summary: "a company's incidents, newest first",
    details: [
      'One line per incident: id, service, status (minor or major), open or resolved, started, title; the list of GET /api/v2/incidents.',
      'The incidents of the only company there is, unless --company names one.',
    ].join('\n'),
    options: ['open', 'company', 'db'],
    run: loaded(
      () => import('./incidents-command.js'),
      (m) => m.runIncidentsList,
    ),
  },
  {
    name: 'maintenances list',
    synopsis: '[--company NAME] [--db FILE|URL]',
    summary: "a company's maintenances, upcoming and in progress first",
    details: [
      'One line per maintenance: id, status, start, end, services, title; the list of GET /api/v2/maintenances',
      '(those scheduled or in progress, soonest first, then those over in the last 30 days).',
      'The maintenances of the only company there is, unless --company names one.',
    ].join('\n'),
    options: ['company', 'db'],
    run: loaded(
      () => import('./maintenances-command.js'),
      (m) => m.runMaintenancesList,
    ),
  },
  {
    name: 'monitors list',
    synopsis: '[--company NAME] [--config FILE] [--db FILE|URL]',
    summary: "a company's custom monitors, with heartbeats' push addresses",
    details: [
      'One line per monitor: id, probe type, status (ok or down), name, and what is probed; for a heartbeat, its push address',
      '(a secret: GET or POST to it from the job). The addresses start with the public_url of --config, if given.',
      'The monitors of the only company there is, unless --company names one.',
    ].join('\n'),
    options: ['company', 'config', 'db'],
    run: loaded(
      () => import('./monitors-command.js'),
      (m) => m.runMonitorsList,
    ),
  },
  {
    name: 'outbox list',
    synopsis: '[--dead] [--db FILE|URL]',
    summary: 'notifications waiting, sent or dead-lettered',
    details: 'One line per notification: id, state, event, destination, attempts, when (sent, or next attempt), last error.',
    options: ['dead', 'db'],
    run: loaded(
      () => import('./outbox-commands.js'),
      (m) => m.runOutboxList,
    ),
  },
  {
    name: 'outbox retry',
    synopsis: '[ID ...] [--db FILE|URL]',
    summary: 'put dead-lettered notifications back in line',
    details: 'Without ids, every dead notification; a running server delivers them.',
    options: ['db'],
    operands: { min: 0, max: Number.POSITIVE_INFINITY },
    run: loaded(
      () => import('./outbox-commands.js'),
      (m) => m.runOutboxRetry,
    ),
  },
  {
    name: 'feeds',
    synopsis: '[--all] [--db FILE|URL]',
    summary: 'vendor feeds read: status, last success, last error, next read',
    details: [
      'One line per feed: service, kind, address, status (or "no data" and why), last successful read, next read (or why it fails),',
      'and what the last read had to leave out of the feed.',
    ].join('\n'),
    options: ['all', 'db'],
    run: loaded(
      () => import('./feeds-command.js'),
      (m) => m.runFeeds,
    ),
  },
  {
    name: 'feeds check',
    synopsis: '[URLNAME...] [--config FILE] [--db FILE|URL]',
    summary: 'read the named feeds (or every watched one) once, from here, and say ok or why not',
    details: [
      'For checking that this network reaches the vendors: each feed the database knows is read whole, as the',
      "poller reads it, with --config's ingestion settings and outbound guard; nothing is recorded and the",
      'config is not applied. One line per feed; the exit code is 1 when any read failed.',
    ].join('\n'),
    options: ['config', 'db'],
    operands: { min: 0, max: 1_000 },
    run: loaded(
      () => import('./feeds-command.js'),
      (m) => m.runFeedsCheck,
    ),
  },
  {
    name: 'db backup',
    synopsis: 'FILE [--force] [--db FILE]',
    summary: 'write a consistent copy of the SQLite database to FILE',
    details: [
      'The server may keep running: the copy holds every change committed before it ended.',
      'FILE appears only once complete and checked. An existing FILE is refused unless --force.',
      'PostgreSQL is backed up with pg_dump, not with this command.',
    ].join('\n'),
    options: ['force', 'db'],
    operands: { min: 1, max: 1 },
    run: loaded(
      () => import('./db-file-commands.js'),
      (m) => m.runDbBackup,
    ),
  },
  {
    name: 'db restore',
    synopsis: 'FILE [--db FILE]',
    summary: 'put a backup in place of the SQLite database (the server stopped)',
    details: [
      'Checks that FILE is a statusbot database this version can run, then replaces the database in one step;',
      'the database it replaces stays beside it as FILE.before-restore-TIME. Refused while a server uses it.',
      'PostgreSQL is restored with pg_restore, not with this command.',
    ].join('\n'),
    options: ['db'],
    operands: { min: 1, max: 1 },
    run: loaded(
      () => import('./db-file-commands.js'),
      (m) => m.runDbRestore,
    ),
  },
  {
    name: 'db copy',
    synopsis: '--from FILE --to URL',
    summary: 'copy a SQLite database into a new, empty PostgreSQL one',
    details: [
      'Needs a source no server writes to (stop statusbot, or copy from `statusbot db backup FILE`) and an empty target.',
      'In one transaction on the target: a copy that fails leaves the target empty. Ends with the row counts of every table on both sides.',
    ].join('\n'),
    options: ['from', 'to'],
    run: loaded(
      () => import('./db-copy-command.js'),
      (m) => m.runDbCopy,
    ),
  },
  {
    name: 'discord register',
    synopsis: '[--guild ID]',
    summary: 'register the Discord slash commands',
    details: "Needs DISCORD_TOKEN and DISCORD_APPLICATION_ID. Global commands take up to an hour to show; a guild's at once.",
    options: ['guild'],
    run: loaded(
      () => import('./discord-command.js'),
      (m) => m.runDiscordRegister,
    ),
  },
  {
    name: 'jobs run',
    synopsis: 'NAME [--config FILE] [--db FILE|URL]',
    summary: `run one job once: ${JOB_NAMES.join(', ')}`,
    details: 'Runs it as a slot of serve would, and says what it did.',
    options: ['config', 'db'],
    operands: { min: 1, max: 1 },
    run: loaded(
      () => import('./jobs-command.js'),
      (m) => m.runJobsRun,
    ),
  },
  {
    name: 'agent',
    synopsis: '--server URL --token T --region NAME [--config FILE] [--block-private-targets]',
    summary: "probe a company's monitors from another region, reporting to a server",
    details: [
      "Fetches the monitors of the token's company from the server (every kind but heartbeats, which the servers judge),",
      'probes each every interval as the servers do, and posts the results. It needs no database: while the server is',
      'away it keeps probing and holds up to 10000 results (the oldest dropped first, the drops counted and logged),',
      'sent once the server answers. HTTP probes carry the user agent "statusbot-monitor/… (agent; region NAME)" and the',
      'header X-Statusbot-Region: NAME.',
      'Timeouts and the private-target guard come from the probes section of --config, if given. SIGTERM or SIGINT stops it.',
    ].join('\n'),
    options: ['server', 'token', 'region', 'config', 'block-private-targets'],
    run: loaded(
      () => import('./agent-command.js'),
      (m) => m.runAgent,
    ),
  },
];
