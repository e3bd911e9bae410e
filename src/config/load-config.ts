import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { DomainError } from '../domain/errors.js';
import type { FieldIssue } from '../domain/errors.js';
import type { Setup } from '../domain/setup/setup.js';
import { parseInput } from '../domain/validation.js';
import { configFileSchema, httpUrl } from './config-schema.js';
import { ConfigError } from './config-error.js';
import { substituteEnv } from './env-substitution.js';
import { regionName } from '../domain/companies/agent-keys.js';
import type { ConfigFile } from './config-schema.js';

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** Chat requests per minute: a workspace's burst of real commands stays far below; one address may carry several workspaces (Slack's and Discord's senders). */
export const DEFAULT_CHAT_RATE_LIMIT = { perMinute: 120, perAddressPerMinute: 600 } as const;

import { DEFAULT_USER_REPORTS } from '../domain/model/user-report-settings.js';
import type { UserReportSettings } from '../domain/model/user-report-settings.js';
import type { CatalogServiceSpec } from '../domain/setup/setup.js';
import { VENDOR_CATALOG, VENDOR_IDS } from './vendor-catalog.js';
import { DEMO_JOB } from './job-names.js';
import { DEFAULT_DESTINATION_LIMITS } from './destination-limits.js';
import type { DestinationLimits } from './destination-limits.js';

export interface Config {
  /** Base of tracker_url values; when absent, http://localhost:{port}. */
  publicUrl: string | null;
  rateLimitPerMinute: number;
  setup: Setup;
  region: string;
  retentionDays: number;
  /**
   * Days a sent notification stays in the outbox; deliveries under way at once
   * in this process; and, per webhook URL or mail address, deliveries under way
   * at once and started per second (null: no limit).
   */
  outbox: { retentionDays: number; concurrency: number; perDestination: DestinationLimits };
  probes: { blockPrivateTargets: boolean; timeoutMs: number; concurrency: number };
  /** PostgreSQL's connection pool of this process. */
  database: { poolSize: number };
  /** GET /metrics: open without a token, else only to `Authorization: Bearer <token>`. */
  metrics: { token?: string };
  /** Reading vendors' status feeds: how often, how long a read may take, how many at once. */
  ingestion: { intervalMs: number; timeoutMs: number; concurrency: number };
  /** When user reports open an incident, and when it resolves. */
  userReports: UserReportSettings;
  /** Jobs turned off with `jobs.<name>.enabled: false`. */
  disabledJobs: ReadonlySet<string>;
  /** Where status page subscribers' mail is sent; absent: it waits in the outbox. */
  smtp?: { url: string; from: string };
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDR ranges); empty: the socket's address. */
  http: { trustProxy: readonly string[] };
  /** Slack and Discord requests per minute, per workspace (guild) and per client address. */
  chat: { rateLimit: { perMinute: number; perAddressPerMinute: number } };
}

export { ConfigError } from './config-error.js';

export interface LoadedConfig {
  config: Config;
  /** "file:line:column" of a key path, for messages about entries that clash with the database. */
  locate(path: readonly (string | number)[]): string;
}

export const emptyConfig = (): Config => ({
  publicUrl: null,
  rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
  setup: { services: withCatalog([]), companies: [], demo: true },
  region: 'local',
  retentionDays: 90,
  outbox: { retentionDays: 7, concurrency: 64, perDestination: DEFAULT_DESTINATION_LIMITS },
  probes: { blockPrivateTargets: false, timeoutMs: 10_000, concurrency: 1_000 },
  database: { poolSize: 10 },
  metrics: {},
  ingestion: { intervalMs: 60_000, timeoutMs: 10_000, concurrency: 50 },
  userReports: DEFAULT_USER_REPORTS,
  disabledJobs: new Set(),
  http: { trustProxy: [] },
  chat: { rateLimit: { ...DEFAULT_CHAT_RATE_LIMIT } },
});

function locator(file: string, doc: Document, lines: LineCounter) {
  return (path: readonly (string | number)[]): string => {
    // A missing key has no node: point at the nearest ancestor that exists.
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) {
        const pos = lines.linePos(range[0]);
        return `${file}:${pos.line}:${pos.col}`;
      }
    }
    return file;
  };
}

/** Describes every issue of an invalid_input error raised against the config, with its place in the file. */
export function describeConfigIssues(file: string, issues: readonly FieldIssue[], locate: LoadedConfig['locate']): string {
  return [`${file} is not a valid statusbot config:`, ...issues.map((i) => `  ${locate(i.path)}: ${i.message}`)].join('\n');
}

/** The config in `text`; `${NAME}` references in it are read from `env` (none: each one is an error naming it). */
export function parseConfig(file: string, text: string, env: NodeJS.ProcessEnv = {}): LoadedConfig {
  const lines = new LineCounter();
  const doc = parseDocument(substituteEnv(file, text, env), { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      [`${file} is not valid YAML:`, ...doc.errors.map((e) => `  ${file}:${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0]}`)].join('\n'),
    );
  }
  const locate = locator(file, doc, lines);
  let parsed: ConfigFile;
  try {
    parsed = parseInput(configFileSchema, doc.toJS() ?? {}, 'body', 'config file');
  } catch (e) {
    if (e instanceof DomainError) throw new ConfigError(describeConfigIssues(file, e.issues, locate));
    throw e;
  }
  return {
    locate,
    config: {
      publicUrl: parsed.public_url ?? null,
      rateLimitPerMinute: parsed.rate_limit?.per_minute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
      setup: { services: withCatalog(parsed.services), companies: parsed.companies, demo: parsed.demo },
      region: parsed.region,
      retentionDays: parsed.retention_days,
      outbox: {
        retentionDays: parsed.outbox.retention_days,
        concurrency: parsed.outbox.concurrency,
        perDestination: { concurrency: parsed.outbox.per_destination.concurrency, perSecond: parsed.outbox.per_destination.per_second },
      },
      probes: {
        blockPrivateTargets: parsed.probes.block_private_targets,
        timeoutMs: Math.round(parsed.probes.timeout_seconds * 1000),
        concurrency: parsed.probes.concurrency,
      },
      database: { poolSize: parsed.database.pool_size },
      metrics: parsed.metrics.token ? { token: parsed.metrics.token } : {},
      ingestion: {
        intervalMs: parsed.ingestion.interval_seconds * 1000,
        timeoutMs: Math.round(parsed.ingestion.timeout_seconds * 1000),
        concurrency: parsed.ingestion.concurrency,
      },
      userReports: {
        threshold: parsed.user_reports.threshold,
        windowMs: parsed.user_reports.window_minutes * 60_000,
        resolveAfterMs: parsed.user_reports.resolve_after_minutes * 60_000,
      },
      disabledJobs: new Set([
        ...Object.entries(parsed.jobs)
          .filter(([, j]) => j?.enabled === false)
          .map(([name]) => name),
        // Without the demo there is nothing for its job to cycle.
        ...(parsed.demo ? [] : [DEMO_JOB]),
      ]),
      http: { trustProxy: parsed.http.trust_proxy },
      chat: {
        rateLimit: {
          perMinute: parsed.chat?.rate_limit?.per_minute ?? DEFAULT_CHAT_RATE_LIMIT.perMinute,
          perAddressPerMinute: parsed.chat?.rate_limit?.per_address_per_minute ?? DEFAULT_CHAT_RATE_LIMIT.perAddressPerMinute,
        },
      },
      ...(parsed.smtp ? { smtp: { url: parsed.smtp.url, from: parsed.smtp.from } } : {}),
    },
  };
}

/**
 * The config's services merged with the built-in catalog of vendors: an
 * entry of the config replaces the catalog's of the same urlname, and keeps
 * the catalog's id, and its feed unless it names one (or `feed: null`).
 */
export function withCatalog(services: readonly CatalogServiceSpec[]): CatalogServiceSpec[] {
  const declared = new Set(services.map((s) => s.urlname));
  const catalog = new Map(VENDOR_CATALOG.map((v) => [v.urlname, v]));
  const builtIn: CatalogServiceSpec[] = VENDOR_CATALOG.filter((v) => !declared.has(v.urlname)).map((v) => ({
    id: v.id,
    urlname: v.urlname,
    name: v.name,
    status_page_url: v.status_page_url,
    feed: v.feed,
    poll: 'watched',
    maintenance: [],
    builtIn: true,
  }));
  return [
    ...builtIn,
    ...services.map((s) => ({ ...s, id: VENDOR_IDS.get(s.urlname), feed: s.feed !== undefined ? s.feed : (catalog.get(s.urlname)?.feed ?? null) })),
  ];
}

export function loadConfig(file: string, env: NodeJS.ProcessEnv): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
  }
  return parseConfig(file, text, env);
}

/**
 * What the environment says of this process over what the config file says of every process that reads it
 * (one config, servers in several places): STATUSBOT_REGION names its probing region, STATUSBOT_PUBLIC_URL the
 * address people reach it at (a container's or a Helm release's, kept out of the file).
 */
export function withEnvironment(config: Config, env: NodeJS.ProcessEnv): Config {
  const given = (name: string) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? null : raw;
  };
  const region = given('STATUSBOT_REGION');
  const publicUrl = given('STATUSBOT_PUBLIC_URL');
  const checkedRegion = region === null ? null : regionName.safeParse(region);
  if (checkedRegion && !checkedRegion.success)
    throw new ConfigError(`STATUSBOT_REGION ${checkedRegion.error.issues[0]?.message ?? 'is not a region name'}: "${region}"`);
  const checkedUrl = publicUrl === null ? null : httpUrl.safeParse(publicUrl.trim());
  if (checkedUrl && !checkedUrl.success) throw new ConfigError(`STATUSBOT_PUBLIC_URL must be an http(s) URL: "${publicUrl}"`);
  return {
    ...config,
    region: checkedRegion?.data ?? config.region,
    publicUrl: checkedUrl?.data.replace(/\/+$/, '') ?? config.publicUrl,
  };
}
