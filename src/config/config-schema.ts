import { z } from 'zod';
import { BOARD_ID } from '../domain/model/board.js';
import { normalizeTags, MAX_TAGS, TAG_MAX_LENGTH } from '../domain/boards/board-input.js';
import { digestSettings } from '../domain/chat/subscription-input.js';
import { NOTIFY_EVENTS } from '../domain/model/company.js';
import { notifyDestination } from './notify-schema.js';
import { parseProxyRange } from '../infrastructure/client-address.js';
import { JOB_NAMES } from './job-names.js';
import { FEED_KINDS } from '../domain/vendors/vendor-snapshot.js';
import { slugOf } from '../domain/status-pages/page-slug.js';
import { CUSTOM_SERVICE_ID_RULE, isCustomServiceId } from '../domain/services/service-ids.js';
import { DEFAULT_SERVICE_LABEL } from '../domain/alerts/alert-settings.js';
import { DEFAULT_DAYS_BEFORE_EXPIRY, DNS_RECORDS, PROBE_TYPES } from '../domain/monitors/monitor.js';
import type { ProbeType } from '../domain/monitors/monitor.js';
import { resolverAddress } from '../domain/monitors/resolver-address.js';

const URLNAME = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;

const name = z.string().trim().min(1).max(200);
const urlname = z.string().regex(URLNAME, { error: 'must be lowercase letters, digits and dashes, like acme-api' });
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const id = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
/** Those of the catalog are out of a company's reach (see domain/services/service-ids.ts). */
const customServiceId = z.int().refine(isCustomServiceId, { error: CUSTOM_SERVICE_ID_RULE });
const date = z.union([z.date(), z.iso.datetime({ offset: true })]).transform((v) => new Date(v));

/** Where a vendor's status is read: a Statuspage base address, an RSS or Atom feed, a Google Cloud incidents.json, an Instatus page. */
const feed = z.strictObject({ kind: z.enum(FEED_KINDS), url: httpUrl });

const catalogService = z.strictObject({
  urlname,
  name,
  status_page_url: httpUrl.nullable().default(null),
  /** null turns off the built-in catalog's feed of this service. */
  feed: feed.nullable().optional(),
  /** `always`: polled even when nobody watches the service. */
  poll: z.enum(['watched', 'always']).default('watched'),
  maintenance: z
    .array(z.strictObject({ starts_at: date, ends_at: date }).refine((w) => w.ends_at > w.starts_at, { error: 'must be after starts_at', path: ['ends_at'] }))
    .default([]),
});

/** `address` or `address:port` (`[v6]:port`): the resolver a dns monitor asks, an IP so that the private-target guard can judge it. */
const dnsServer = z.string().refine((v) => resolverAddress(v) !== null, { error: 'must be an IP address, optionally with :port' });

const KIND_KEYS = {
  keyword: ['keyword'],
  dns: ['record', 'expect', 'dns_server'],
  tls: ['days_before_expiry'],
  heartbeat: ['grace_seconds'],
} as const;

/** What `url` must look like, per kind; heartbeats have none (their address is the push URL). */
function urlProblem(kind: ProbeType, url: string | undefined): string | null {
  if (kind === 'heartbeat') return url === undefined ? null : 'is not given for a heartbeat: it is pushed to';
  if (url === undefined) return 'is required';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL';
  }
  switch (kind) {
    case 'ping':
    case 'keyword':
      return /^https?:$/.test(parsed.protocol) ? null : 'must be an http(s) URL';
    case 'tls':
      return parsed.protocol === 'https:' ? null : 'must be an https URL, like https://api.example.com';
    case 'tcp':
      return parsed.protocol === 'tcp:' && parsed.hostname && parsed.port ? null : 'must be tcp://host:port';
    case 'dns':
      return parsed.protocol === 'dns:' && parsed.hostname && !parsed.port && parsed.pathname.replace(/^\/$/, '') === ''
        ? null
        : 'must be dns://name, like dns://api.example.com';
  }
}

const customMonitor = z
  .strictObject({
    id,
    name,
    url: z.string().optional(),
    probe_type: z.enum(PROBE_TYPES),
    keyword: z.string().min(1).nullable().default(null),
    interval_seconds: z.int().min(1).max(86_400).default(60),
    /** The urlname of the company's custom service it watches: a maintenance of that service pauses it. */
    service: urlname.nullable().default(null),
    record: z.enum(DNS_RECORDS).optional(),
    expect: z.array(z.string().trim().min(1).max(2_000)).min(1).max(50).optional(),
    dns_server: dnsServer.optional(),
    days_before_expiry: z.int().min(0).max(3_650).optional(),
    grace_seconds: z.int().min(0).max(86_400).optional(),
  })
  .superRefine((m, ctx) => {
    const problem = urlProblem(m.probe_type, m.url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['url'] });
    if (m.probe_type === 'keyword' && m.keyword === null)
      ctx.addIssue({ code: 'custom', message: 'is required when probe_type is keyword', path: ['keyword'] });
    for (const [kind, keys] of Object.entries(KIND_KEYS)) {
      if (kind === m.probe_type) continue;
      for (const key of keys) {
        if (m[key] !== undefined && m[key] !== null) ctx.addIssue({ code: 'custom', message: `is only for probe_type ${kind}`, path: [key] });
      }
    }
  })
  .transform((m) => ({
    id: m.id,
    name: m.name,
    url: m.url ?? '',
    probe_type: m.probe_type,
    keyword: m.keyword,
    interval_seconds: m.interval_seconds,
    service: m.service,
    ...(m.probe_type === 'dns' ? { record: m.record ?? 'A', expect: m.expect ?? null, dns_server: m.dns_server ?? null } : {}),
    ...(m.probe_type === 'tls' ? { days_before_expiry: m.days_before_expiry ?? DEFAULT_DAYS_BEFORE_EXPIRY } : {}),
    ...(m.probe_type === 'heartbeat' ? { grace_seconds: m.grace_seconds ?? 0 } : {}),
  }));

const board = z.strictObject({
  id: z.string().regex(BOARD_ID, { error: 'must be a UUID' }),
  name,
  urlname,
  services: z
    .array(
      z.strictObject({
        urlname,
        tags: z
          .array(z.string())
          .default([])
          .transform(normalizeTags)
          .pipe(z.array(z.string().max(TAG_MAX_LENGTH)).max(MAX_TAGS)),
      }),
    )
    .default([]),
});

/**
 * A webhook that receives the page's incident notifications, signed with its
 * secret; or an email address that receives them by mail (confirmed, as the
 * config names it).
 */
const subscriber = z.union([
  z.strictObject({ webhook: httpUrl, secret: z.string().min(16).max(512) }),
  z.strictObject({ email: z.email({ error: 'must be an email address' }).max(254) }),
]);

const statusPage = z.strictObject({
  name,
  /** Served at {public_url}/status/{slug}; default: the name in kebab-case. */
  slug: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, { error: 'must be lowercase letters, digits and dashes, like acme' })
    .optional(),
  /** Its public address when a proxy serves it on a host of its own. */
  url: httpUrl.optional(),
  /** The company's custom services shown. */
  services: z.array(urlname).default([]),
  /** Catalog services shown live beside them. */
  third_party: z.array(urlname).default([]),
  /** Custom monitors of the company, by id, shown with uptime and response time. */
  monitors: z.array(id).default([]),
  subscribers: z.array(subscriber).default([]),
  /** Headings that gather some of the page's services (Statuspage's component groups), in the order shown. */
  groups: z.array(z.strictObject({ name, services: z.array(urlname).min(1) })).default([]),
});

/** Where mail to status page subscribers is sent from. */
const smtp = z.strictObject({
  url: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL, such as smtp://127.0.0.1:2525' }),
  from: z
    .string()
    .trim()
    .min(3)
    .max(320)
    .refine((v) => /^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(v), {
      error: 'must be an address, such as "Acme status <status@acme.example>"',
    }),
});

/** A channel and what it follows; `slack` or `discord` names the channel id. */
const channel = z
  .strictObject({
    slack: z.string().trim().min(1).max(100).optional(),
    discord: z.string().trim().min(1).max(100).optional(),
    incidents: z.boolean().default(false),
    services: z.array(urlname).default([]),
    /** Custom monitors of the company, by id. */
    monitors: z.array(id).default([]),
    boards: z.array(z.strictObject({ board: z.string().trim().min(1).max(200), ...digestSettings })).default([]),
  })
  .refine((c) => (c.slack === undefined) !== (c.discord === undefined), {
    error: 'needs exactly one of slack or discord (the channel id)',
  });

const company = z.strictObject({
  name,
  plan: z.enum(['free', 'business']).default('free'),
  notify_on: z.array(z.enum(NOTIFY_EVENTS)).default([...NOTIFY_EVENTS]),
  api_keys: z.array(z.string().min(8).max(512)).default([]),
  /** A monitor is down when at least `quorum` regions (this server's and its probe agents') see it down. */
  regions: z.strictObject({ quorum: z.int().min(1).max(100).default(1) }).optional(),
  monitored_services: z.array(urlname).default([]),
  custom_services: z.array(z.strictObject({ id: customServiceId, name, urlname, status_page_url: httpUrl.nullable().default(null) })).default([]),
  custom_monitors: z.array(customMonitor).default([]),
  boards: z.array(board).default([]),
  status_pages: z.array(statusPage).default([]),
  slack: z
    .strictObject({
      team_id: z.string().trim().min(1).max(100).optional(),
      /** Slack user ids (U…) that may link the workspace and change what channels follow, besides workspace admins and owners. */
      admins: z
        .array(
          z
            .string()
            .trim()
            .regex(/^[UW][A-Z0-9]{2,}$/, { error: 'must be a Slack user id such as U0123ABCD' }),
        )
        .max(1000)
        .default([]),
    })
    .optional(),
  discord: z.strictObject({ guild_id: z.string().trim().min(1).max(100) }).optional(),
  channels: z.array(channel).default([]),
  /** Paging and chat destinations told of the company's incidents: PagerDuty, Opsgenie, Microsoft Teams, Telegram. */
  notify: z.array(notifyDestination).default([]),
  /** How alerts (Alertmanager, Grafana) find the custom service they are about. */
  alerts: z
    .strictObject({
      /** The label whose value is the urlname or name of the service. */
      service_label: z.string().trim().min(1).max(100).default(DEFAULT_SERVICE_LABEL),
      /** The id of one of the company's custom services: for alerts whose label names none. */
      default_service_id: customServiceId.optional(),
    })
    .optional(),
  /** `incident_channels`: a new major incident (or `/incident room`) gets a chat channel of its own. */
  chat: z.strictObject({ incident_channels: z.boolean().default(false) }).optional(),
});

/** The config file. Unknown keys are errors, so that a misspelt key never goes unnoticed. */
export const configFileSchema = z
  .strictObject({
    public_url: httpUrl.optional(),
    /** The demo company, its services, status page and job; false: none of them (and a database's demo is removed). */
    demo: z.boolean().default(true),
    smtp: smtp.optional(),
    rate_limit: z.strictObject({ per_minute: z.int().min(1).max(10_000_000) }).optional(),
    http: z
      .strictObject({
        /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; none by default. */
        trust_proxy: z
          .array(
            z
              .string()
              .trim()
              .refine((v) => parseProxyRange(v) !== null, { error: 'must be an IP address or a CIDR range, such as 10.0.0.0/8 or fd00::/8' }),
          )
          .max(1_000)
          .default([]),
      })
      .default({ trust_proxy: [] }),
    /** Requests of Slack and Discord per minute: per workspace or guild, and per client address. */
    chat: z
      .strictObject({
        rate_limit: z
          .strictObject({
            per_minute: z.int().min(1).max(1_000_000).optional(),
            per_address_per_minute: z.int().min(1).max(10_000_000).optional(),
          })
          .optional(),
      })
      .optional(),
    /** The probing region of this process, named in monitor incidents. */
    region: z.string().trim().min(1).max(64).default('local'),
    retention_days: z.int().min(1).max(36_500).default(90),
    /** Sent notifications are deleted this long after their delivery; dead letters stay until retried. */
    outbox: z
      .strictObject({
        retention_days: z.int().min(1).max(36_500).default(7),
        /** Deliveries under way at once in this process, every destination together. */
        concurrency: z.int().min(1).max(10_000).default(64),
        /** One webhook URL or mail address: deliveries under way at once, and started per second (absent: no limit). */
        per_destination: z
          .strictObject({
            concurrency: z.int().min(1).max(1_000).default(8),
            per_second: z.number().positive().max(100_000).nullable().default(null),
          })
          .default({ concurrency: 8, per_second: null }),
      })
      .default({ retention_days: 7, concurrency: 64, per_destination: { concurrency: 8, per_second: null } }),
    probes: z
      .strictObject({
        block_private_targets: z.boolean().default(false),
        timeout_seconds: z.number().min(0.1).max(120).default(10),
        concurrency: z.int().min(1).max(100_000).default(1_000),
      })
      .default({ block_private_targets: false, timeout_seconds: 10, concurrency: 1_000 }),
    jobs: z.partialRecord(z.enum(JOB_NAMES), z.strictObject({ enabled: z.boolean().default(true) })).default({}),
    /** PostgreSQL (a postgres:// --db): connections in the pool of this process. */
    database: z.strictObject({ pool_size: z.int().min(1).max(1_000).default(10) }).default({ pool_size: 10 }),
    /** GET /metrics (Prometheus); with a token, only scrapes that send `Authorization: Bearer <token>`. */
    metrics: z
      .strictObject({
        token: z
          .string()
          .min(16)
          .max(512)
          .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' })
          .optional(),
      })
      .default({}),
    ingestion: z
      .strictObject({
        interval_seconds: z.int().min(1).max(86_400).default(60),
        timeout_seconds: z.number().min(0.1).max(120).default(10),
        concurrency: z.int().min(1).max(10_000).default(50),
      })
      .default({ interval_seconds: 60, timeout_seconds: 10, concurrency: 50 }),
    user_reports: z
      .strictObject({
        threshold: z.int().min(1).max(10_000).default(3),
        window_minutes: z.int().min(1).max(10_080).default(30),
        resolve_after_minutes: z.int().min(1).max(10_080).default(60),
      })
      .default({ threshold: 3, window_minutes: 30, resolve_after_minutes: 60 }),
    services: z.array(catalogService).default([]),
    companies: z.array(company).default([]),
  })
  .superRefine((config, ctx) => {
    config.companies.forEach((c, i) => {
      c.channels.forEach((ch, j) => {
        if (ch.slack !== undefined && !c.slack?.team_id) {
          ctx.addIssue({ code: 'custom', path: ['companies', i, 'channels', j, 'slack'], message: 'needs slack.team_id on the company' });
        }
        if (ch.discord !== undefined && !c.discord) {
          ctx.addIssue({ code: 'custom', path: ['companies', i, 'channels', j, 'discord'], message: 'needs discord.guild_id on the company' });
        }
      });
      const fallback = c.alerts?.default_service_id;
      if (fallback !== undefined && !c.custom_services.some((s) => s.id === fallback)) {
        ctx.addIssue({
          code: 'custom',
          path: ['companies', i, 'alerts', 'default_service_id'],
          message: 'must be the id of one of the custom_services of this company',
        });
      }
    });
    const seen = (what: string, values: { value: string | number; path: (string | number)[] }[], secret = false) => {
      const first = new Set<string | number>();
      for (const v of values) {
        if (first.has(v.value)) {
          const message = secret ? `declares the same ${what} again` : `declares ${what} ${v.value} again`;
          ctx.addIssue({ code: 'custom', path: v.path, message });
        } else first.add(v.value);
      }
    };
    seen(
      'company',
      config.companies.map((c, i) => ({ value: c.name, path: ['companies', i, 'name'] })),
    );
    seen('service urlname', [
      ...config.services.map((s, i) => ({ value: s.urlname, path: ['services', i, 'urlname'] })),
      ...config.companies.flatMap((c, i) => c.custom_services.map((s, j) => ({ value: s.urlname, path: ['companies', i, 'custom_services', j, 'urlname'] }))),
    ]);
    seen(
      'custom service id',
      config.companies.flatMap((c, i) => c.custom_services.map((s, j) => ({ value: s.id, path: ['companies', i, 'custom_services', j, 'id'] }))),
    );
    seen(
      'monitor id',
      config.companies.flatMap((c, i) => c.custom_monitors.map((m, j) => ({ value: m.id, path: ['companies', i, 'custom_monitors', j, 'id'] }))),
    );
    seen(
      'board id',
      config.companies.flatMap((c, i) => c.boards.map((b, j) => ({ value: b.id.toLowerCase(), path: ['companies', i, 'boards', j, 'id'] }))),
    );
    seen(
      'status page slug',
      config.companies.flatMap((c, i) =>
        c.status_pages.map((p, j) => ({ value: p.slug ?? slugOf(p.name), path: ['companies', i, 'status_pages', j, p.slug ? 'slug' : 'name'] })),
      ),
    );
    config.companies.forEach((c, i) => {
      c.status_pages.forEach((p, j) => {
        const at = ['companies', i, 'status_pages', j, 'groups'];
        const groupOf = new Map<string, string>();
        const names = new Set<string>();
        p.groups.forEach((g, k) => {
          if (names.has(g.name)) ctx.addIssue({ code: 'custom', path: [...at, k, 'name'], message: `declares the group ${g.name} again` });
          names.add(g.name);
          g.services.forEach((service, l) => {
            const earlier = groupOf.get(service);
            if (!p.services.includes(service)) {
              ctx.addIssue({ code: 'custom', path: [...at, k, 'services', l], message: `${service} is not among the services of this page` });
            } else if (earlier !== undefined) {
              ctx.addIssue({ code: 'custom', path: [...at, k, 'services', l], message: `${service} is already in the group ${earlier}` });
            } else groupOf.set(service, g.name);
          });
        });
      });
    });
    config.companies.forEach((c, i) => {
      seen(
        'notification destination',
        c.notify.map((d, j) => ({ value: JSON.stringify(d), path: ['companies', i, 'notify', j] })),
        true,
      );
    });
    seen(
      'API key',
      config.companies.flatMap((c, i) => c.api_keys.map((k, j) => ({ value: k, path: ['companies', i, 'api_keys', j] }))),
      true,
    );
  });

export type ConfigFile = z.output<typeof configFileSchema>;
