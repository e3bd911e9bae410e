import { TABLES_IN_ORDER } from '../../src/db/copy.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RATE_LIMIT_PER_MINUTE, describeConfigIssues, emptyConfig, loadConfig, parseConfig } from '../../src/config/load-config.js';
import type { LoadedConfig } from '../../src/config/load-config.js';
import { VENDOR_CATALOG } from '../../src/config/vendor-catalog.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import type { DomainContext } from '../../src/domain/context.js';
import { DomainError } from '../../src/domain/errors.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { ACME_KEY, README_EXAMPLE_CONFIG, STANDARD_CONFIG, T0, startTestServer } from '../helpers/test-server.js';

const EXAMPLE = README_EXAMPLE_CONFIG;

/** 1-based line of the first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" is not in the text`);
  return i + 1;
}

/** The message of the ConfigError that parsing `text` throws. */
function failure(text: string, file = 'test.yml'): string {
  try {
    parseConfig(file, text);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('parseConfig: the README example', () => {
  it('is accepted, with the defaults filled in', () => {
    const { config } = parseConfig('statusbot.yml', EXAMPLE);
    expect(config).toEqual({
      publicUrl: 'http://localhost:8080',
      rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
      setup: {
        demo: true,
        // The built-in catalog of vendors, then the file's own services (a service the catalog lacks has no feed).
        services: [
          ...VENDOR_CATALOG.map((v) => ({ ...v, poll: 'watched', maintenance: [], builtIn: true })),
          { urlname: 'acme-cloud', name: 'Acme Cloud', status_page_url: 'https://status.acme-cloud.example', feed: null, poll: 'watched', maintenance: [] },
        ],
        companies: [
          {
            name: 'Acme',
            plan: 'business',
            notify_on: expect.any(Array),
            notify: [],
            api_keys: ['acme-key-1'],
            monitored_services: ['demo-service-minor'],
            custom_services: [{ id: 1001, name: 'Acme API', urlname: 'acme-api', status_page_url: null }],
            custom_monitors: [
              { id: 501, name: 'Homepage', url: 'http://127.0.0.1:9/health', probe_type: 'ping', keyword: null, interval_seconds: 60, service: null },
              { id: 502, name: 'Login', url: 'http://127.0.0.1:9/login', probe_type: 'keyword', keyword: 'Sign in', interval_seconds: 60, service: null },
            ],
            boards: [
              {
                id: '5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01',
                name: 'Vendors',
                urlname: 'vendors',
                services: [{ urlname: 'demo-service', tags: ['core'] }],
              },
            ],
            status_pages: [],
            channels: [],
          },
        ],
      },
      region: 'local',
      retentionDays: 90,
      outbox: { retentionDays: 7, concurrency: 64, perDestination: { concurrency: 8, perSecond: null } },
      probes: { blockPrivateTargets: false, timeoutMs: 10_000, concurrency: 1_000 },
      database: { poolSize: 10 },
      ingestion: { intervalMs: 60_000, timeoutMs: 10_000, concurrency: 50 },
      userReports: { threshold: 3, windowMs: 30 * 60_000, resolveAfterMs: 60 * 60_000 },
      disabledJobs: new Set(),
      http: { trustProxy: [] },
      chat: { rateLimit: { perMinute: 120, perAddressPerMinute: 600 } },
      metrics: {},
    });
    expect(config.setup.companies[0]!.notify_on.length).toBeGreaterThan(0);
  });

  it('is accepted by loadConfig from a file, and locate() points into that file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-config-'));
    try {
      const file = join(dir, 'statusbot.yml');
      writeFileSync(file, EXAMPLE);
      const loaded = loadConfig(file, {});
      expect(loaded.config).toEqual(parseConfig('statusbot.yml', EXAMPLE).config);
      const line = lineOf(EXAMPLE, 'Sign in');
      const column = EXAMPLE.split('\n')[line - 1]!.indexOf('"Sign in"') + 1;
      expect(loaded.locate(['companies', 0, 'custom_monitors', 1, 'keyword'])).toBe(`${file}:${line}:${column}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the standard test config and an empty file are accepted too', () => {
    expect(parseConfig('test.yml', STANDARD_CONFIG).config.setup.companies.map((c) => c.name)).toEqual(['Acme', 'Globex', 'Initech']);
    expect(parseConfig('empty.yml', '').config).toEqual(emptyConfig());
  });

  it('loadConfig of a missing file is a ConfigError naming the file', () => {
    expect(() => loadConfig('/nonexistent/statusbot.yml', {})).toThrow(ConfigError);
    expect(() => loadConfig('/nonexistent/statusbot.yml', {})).toThrow(/\/nonexistent\/statusbot\.yml/);
  });
});

describe('parseConfig: a wrong file stops with the key and the line', () => {
  it('plan: gold names companies[0].plan at its line', () => {
    const text = EXAMPLE.replace('plan: business', 'plan: gold');
    const message = failure(text);
    const line = lineOf(text, 'plan: gold');
    expect(message).toContain(`test.yml:${line}:`);
    expect(message).toContain('companies[0].plan');
    expect(message).toMatch(/free, business/);
    expect(message.split('\n')).toHaveLength(2);
  });

  it('the line is the right one also for the second company, and in a file read from disk', () => {
    const text = `${STANDARD_CONFIG.replace('plan: free', 'plan: platinum')}`;
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-config-'));
    try {
      const file = join(dir, 'bad.yml');
      writeFileSync(file, text);
      let message = '';
      try {
        loadConfig(file, {});
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message).toContain(`${file}:${lineOf(text, 'plan: platinum')}:`);
      expect(message).toContain('companies[2].plan');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown top-level key is named with its line', () => {
    const text = `${EXAMPLE}colour: red\n`;
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'colour: red')}:`);
    expect(message).toContain('colour is not a known field');
  });

  it('a misspelt nested key is named with its full path and line', () => {
    const text = EXAMPLE.replace('monitored_services:', 'monitored_service:');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'monitored_service:')}:`);
    expect(message).toContain('companies[0].monitored_service is not a known field');
  });

  it('an unknown key inside a flow mapping is named with its line', () => {
    const text = EXAMPLE.replace('urlname: acme-api }', 'urlname: acme-api, colour: red }');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'colour: red')}:`);
    expect(message).toContain('companies[0].custom_services[0].colour');
  });

  it('bad YAML syntax names the line', () => {
    const tab = 'public_url: http://x\ncompanies:\n\t- name: Acme\n';
    expect(failure(tab)).toMatch(/not valid YAML/);
    expect(failure(tab)).toContain('test.yml:3:');

    const doubled = EXAMPLE.replace('plan: business', 'plan: business\n    plan: free');
    expect(failure(doubled)).toMatch(/not valid YAML/);
    expect(failure(doubled)).toContain(`test.yml:${lineOf(doubled, 'plan: free')}:`);

    const colon = EXAMPLE.replace('plan: business', 'plan: business: yes');
    expect(failure(colon)).toContain(`test.yml:${lineOf(colon, 'plan: business: yes')}:`);
  });

  it('a keyword monitor without keyword is named at the monitor', () => {
    const text = EXAMPLE.replace(', keyword: "Sign in"', '');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'name: Login')}:`);
    expect(message).toContain('companies[0].custom_monitors[1].keyword');
    expect(message).toMatch(/keyword is required when probe_type is keyword/);
  });

  it('a blank keyword is refused at the keyword', () => {
    const text = EXAMPLE.replace('keyword: "Sign in"', 'keyword: ""');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'name: Login')}:`);
    expect(message).toContain('companies[0].custom_monitors[1].keyword must not be blank');
  });

  it('duplicate ids and names are named at the second declaration', () => {
    const service = EXAMPLE.replace(
      '      - { id: 1001, name: Acme API, urlname: acme-api }',
      '      - { id: 1001, name: Acme API, urlname: acme-api }\n      - { id: 1001, name: Acme Web, urlname: acme-web }',
    );
    expect(failure(service)).toContain(`test.yml:${lineOf(service, 'Acme Web')}:`);
    expect(failure(service)).toContain('companies[0].custom_services[1].id');
    expect(failure(service)).toContain('declares custom service id 1001 again');

    const monitor = EXAMPLE.replace('{ id: 502, name: Login', '{ id: 501, name: Login');
    expect(failure(monitor)).toContain(`test.yml:${lineOf(monitor, 'name: Login')}:`);
    expect(failure(monitor)).toContain('declares monitor id 501 again');

    const urlname = EXAMPLE.replace('urlname: acme-api', 'urlname: acme-cloud');
    expect(failure(urlname)).toContain(`test.yml:${lineOf(urlname, 'name: Acme API')}:`);
    expect(failure(urlname)).toContain('declares service urlname acme-cloud again');

    const board = `${EXAMPLE}      - id: 5D0E8F8E-8B1C-4C55-9D7A-2F1F0C0F4A01\n        name: Again\n        urlname: again\n`;
    expect(failure(board)).toContain(`test.yml:${lineOf(board, '5D0E8F8E')}:`);
    expect(failure(board)).toContain('companies[0].boards[1].id');

    const company = `${EXAMPLE}  - name: Acme\n`;
    expect(failure(company)).toContain(`test.yml:${company.split('\n').length - 1}:`);
    expect(failure(company)).toContain('declares company Acme again');
  });

  it('a duplicate API key is named without echoing the secret', () => {
    const text = `${EXAMPLE}  - name: Globex\n    api_keys: ["acme-key-1"]\n`;
    const message = failure(text);
    expect(message).toContain(`test.yml:${text.split('\n').length - 1}:`);
    expect(message).toContain('companies[1].api_keys[0]');
    expect(message).not.toContain('acme-key-1');
  });

  it('every problem of the file is reported at once', () => {
    const text = EXAMPLE.replace('plan: business', 'plan: gold')
      .replace('public_url: http://localhost:8080', 'public_url: ftp://x')
      .replace('interval_seconds: 60', 'interval_seconds: 0');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'public_url')}:`);
    expect(message).toContain(`test.yml:${lineOf(text, 'plan: gold')}:`);
    expect(message).toContain(`test.yml:${lineOf(text, 'interval_seconds: 0')}:`);
    expect(message).toContain('companies[0].custom_monitors[0].interval_seconds');
  });

  it('other invalid values: rate limit, urlname, UUID, maintenance window', () => {
    expect(failure(`rate_limit: { per_minute: 0 }\n`)).toContain('test.yml:1:');
    expect(failure(`rate_limit: { per_minute: 0 }\n`)).toContain('rate_limit.per_minute');
    expect(failure(EXAMPLE.replace('urlname: vendors', 'urlname: Vendors!'))).toContain(`companies[0].boards[0].urlname`);
    const uuid = EXAMPLE.replace('5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01', 'board-1');
    expect(failure(uuid)).toContain(`test.yml:${lineOf(uuid, 'board-1')}:`);
    expect(failure(uuid)).toContain('companies[0].boards[0].id must be a UUID');
    const windowText = `services:\n  - urlname: a\n    name: A\n    maintenance:\n      - { starts_at: 2026-01-02T00:00:00Z, ends_at: 2026-01-01T00:00:00Z }\n`;
    expect(failure(windowText)).toContain('test.yml:5:');
    expect(failure(windowText)).toContain('services[0].maintenance[0].ends_at');
  });

  it('a file that is not a mapping is refused at line 1', () => {
    for (const text of ['- a\n- b\n', 'hello\n', '42\n']) {
      const message = failure(text);
      expect(message).toContain('test.yml:1:');
    }
  });

  it('a file that is not a mapping is described as a config, not as an HTTP "body"', () => {
    const message = failure('- a\n- b\n');
    expect(message).not.toMatch(/\bbody\b/);
    expect(message).toMatch(/mapping|object/);
  });
});

// ---------------------------------------------------------------------------

/** Every table (the list `statusbot db copy` copies, checked against the schema when built). */
const TABLES = TABLES_IN_ORDER;

/** Every row of every table, in a stable order. */
async function dump(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

describe('applySetup', () => {
  let database: TestDatabase;
  let dbPath: string;
  let db: Db;
  let ctx: DomainContext;

  beforeEach(async () => {
    database = await createTestDatabase();
    dbPath = database.path;
    db = openDatabase({ path: dbPath });
    await migrateToLatest(db);
    ctx = createDomainContext({ db, clock: manualClock(T0), publicUrl: 'http://localhost:8080' });
  });
  afterEach(async () => {
    await db.destroy().catch(() => {});
    await database.drop();
  });

  for (const [name, text] of [
    ['the README example', EXAMPLE],
    ['the standard test config (status pages, subscribers, three companies)', STANDARD_CONFIG],
  ] as const) {
    it(`is idempotent: applying ${name} twice leaves the same rows`, async () => {
      const { config } = parseConfig('test.yml', text);
      await applySetup(ctx, config.setup);
      const once = await dump(db);
      expect(once.companies!.length).toBe(config.setup.companies.length);
      expect(once.api_keys!.length).toBe(config.setup.companies.flatMap((c) => c.api_keys).length);
      await applySetup(ctx, config.setup);
      expect(await dump(db)).toEqual(once);
      // Also a day later: nothing the config declares is duplicated.
      (ctx.clock as ReturnType<typeof manualClock>).advance(86_400_000);
      await applySetup(ctx, config.setup);
      const later = await dump(db);
      for (const table of ['companies', 'api_keys', 'services', 'custom_monitors', 'boards', 'board_services', 'status_pages', 'subscribers'] as const) {
        expect(later[table]!.length, table).toBe(once[table]!.length);
      }
    });
  }

  it('stores an API key as the SHA-256 hex of the plaintext, and the plaintext nowhere', async () => {
    const secret = 'plain-secret-key-7f3a9c';
    const { config } = parseConfig('test.yml', EXAMPLE.replace('"acme-key-1"', `"${secret}"`));
    await applySetup(ctx, config.setup);
    await applySetup(ctx, config.setup);
    const keys = await db.selectFrom('api_keys').selectAll().execute();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.key_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(keys[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await dump(db))).not.toContain(secret);
    await db.destroy();
    // SQLite keeps the data in these files (on PostgreSQL there are none here; the dump above holds everything).
    for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(secret)), file).toBe(false);
    }
  });

  /** Applies `text` on top of what is in the database; the message the CLI would print. */
  async function clash(text: string): Promise<string> {
    const loaded: LoadedConfig = parseConfig('test.yml', text);
    try {
      await applySetup(ctx, loaded.config.setup);
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe('invalid_input');
      return describeConfigIssues('test.yml', (e as DomainError).issues, loaded.locate);
    }
    throw new Error('the config was applied');
  }

  it("a custom service id of another company's service is reported at its line, naming the holder, and nothing is written", async () => {
    await applySetup(ctx, parseConfig('test.yml', EXAMPLE).config.setup);
    const before = await dump(db);
    const text = `companies:\n  - name: Globex\n    custom_services:\n      - { id: 1001, name: Globex API, urlname: globex-api }\n`;
    const message = await clash(text);
    expect(message).toContain('test.yml is not a valid statusbot config');
    expect(message).toContain(`test.yml:${lineOf(text, 'Globex API')}:`);
    expect(message).toContain('service id 1001 is already taken by "Acme API" of the company Acme');
    expect(await dump(db)).toEqual(before);
  });

  it('keeps a custom service id on a fresh database even when the same file declares catalog services', async () => {
    const text = `services:\n  - { urlname: acme-cloud, name: Acme Cloud }\ncompanies:\n  - name: Acme\n    custom_services:\n      - { id: 5, name: Acme API, urlname: acme-api }\n`;
    await applySetup(ctx, parseConfig('test.yml', text).config.setup);
    const ids = await db.selectFrom('services').select(['id', 'urlname']).where('urlname', 'in', ['acme-api', 'acme-cloud']).orderBy('id').execute();
    // A service the config adds to the catalog takes an id of the catalog's own range.
    expect(ids).toEqual([
      { id: 5, urlname: 'acme-api' },
      { id: 900_000, urlname: 'acme-cloud' },
    ]);
  });

  it('a custom service urlname equal to a catalog urlname is reported at its line', async () => {
    await applySetup(ctx, parseConfig('test.yml', EXAMPLE).config.setup);
    const text = EXAMPLE.replace('urlname: acme-api }', 'urlname: demo-service-ok }');
    const message = await clash(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'Acme API')}:`);
    expect(message).toContain('urlname demo-service-ok is already taken by the demo service "Demo Service (always ok)"');
  });

  it('an API key of another company in the database is reported at its line, without the key', async () => {
    await applySetup(ctx, parseConfig('test.yml', EXAMPLE).config.setup);
    const text = `companies:\n  - name: Globex\n    api_keys: ["acme-key-1"]\n`;
    const message = await clash(text);
    expect(message).toContain('test.yml:3:');
    expect(message).toContain('already belongs to another company');
    expect(message).not.toContain('acme-key-1');
  });

  it('an unknown monitored service or board service is reported at its line', async () => {
    const monitored = EXAMPLE.replace('monitored_services: [demo-service-minor]', 'monitored_services: [no-such-service]');
    const m1 = await clash(monitored);
    expect(m1).toContain(`test.yml:${lineOf(monitored, 'no-such-service')}:`);
    expect(m1).toContain('no-such-service');
    const board = EXAMPLE.replace('{ urlname: demo-service, tags: [core] }', '{ urlname: acme-api, tags: [core] }');
    const m2 = await clash(board);
    expect(m2).toContain(`test.yml:${lineOf(board, '{ urlname: acme-api, tags')}:`);
    expect(m2).toContain('acme-api is not a third-party service');
  });
});

describe('startServer twice on the same database', () => {
  it('applies the config idempotently: same rows, the same key still works', async () => {
    const database = await createTestDatabase();
    const dbPath = database.path;
    try {
      const first = await startTestServer({ dbPath });
      expect(first.demoKey).toBeNull();
      const once = await dump(first.ctx.db);
      const board = await first.api('GET', '/api/v2/boards/5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01');
      await first.stop();

      const second = await startTestServer({ dbPath });
      try {
        // The request above used Acme's key: when is written at the stop, not by applying the config.
        const unused = (d: Record<string, string[]>) => ({
          ...d,
          api_keys: d.api_keys!.map((row) => JSON.stringify({ ...JSON.parse(row), last_used_at: null })).sort(),
        });
        expect(unused(await dump(second.ctx.db))).toEqual(unused(once));
        const again = await second.api('GET', '/api/v2/boards/5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01', { key: ACME_KEY });
        expect(again.status).toBe(200);
        expect(again.body).toEqual(board.body);
      } finally {
        await second.stop();
      }
    } finally {
      await database.drop();
    }
  });
});

describe('parseConfig: chat, jobs and probes', () => {
  const base = `companies:\n  - name: Acme\n    api_keys: ["acme-key-1"]\n`;
  const failure = (text: string): string => {
    try {
      parseConfig('test.yml', text);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('the config was accepted');
  };

  it('reads workspaces, channels, jobs, region, retention and probe settings', () => {
    const { config } = parseConfig(
      'test.yml',
      `${base}    slack: { team_id: T1 }
    channels:
      - slack: C1
        incidents: true
        services: [demo-service]
        boards: [{ board: vendors, timezone: Europe/Berlin }]
region: eu-west
retention_days: 30
probes: { block_private_targets: true, timeout_seconds: 2.5 }
jobs: { digests: { enabled: false } }
`,
    );
    expect(config.setup.companies[0]!.channels).toEqual([
      {
        slack: 'C1',
        incidents: true,
        services: ['demo-service'],
        monitors: [],
        boards: [{ board: 'vendors', schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin', only_on_change: false, edit_in_place: false }],
      },
    ]);
    expect(config.region).toBe('eu-west');
    expect(config.retentionDays).toBe(30);
    expect(config.probes).toEqual({ blockPrivateTargets: true, timeoutMs: 2500, concurrency: 1000 });
    expect([...config.disabledJobs]).toEqual(['digests']);
  });

  it('names the line of a channel without its workspace, a bad schedule and an unknown job', () => {
    const noTeam = `${base}    channels:\n      - slack: C1\n        incidents: true\n`;
    expect(failure(noTeam)).toContain('test.yml:5:');
    expect(failure(noTeam)).toContain('companies[0].channels[0].slack needs slack.team_id on the company');
    const badCron = `${base}    discord: { guild_id: "1" }\n    channels:\n      - discord: "2"\n        boards: [{ board: b, schedule: "at nine" }]\n`;
    expect(failure(badCron)).toContain('schedule must be a cron expression');
    expect(failure(`jobs: { coffee: { enabled: false } }\n`)).toContain('jobs.coffee');
  });

  it('reads http.trust_proxy (addresses and CIDR ranges of both families) and names an entry that is neither', () => {
    const { config } = parseConfig('test.yml', `${base}http: { trust_proxy: [127.0.0.1, 10.0.0.0/8, "::1", "fd00::/8"] }\n`);
    expect(config.http).toEqual({ trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'] });
    const wrong = failure(`${base}http:\n  trust_proxy: [10.0.0.1, proxy.internal]\n`);
    expect(wrong).toContain('test.yml:5:');
    expect(wrong).toContain('http.trust_proxy[1] must be an IP address or a CIDR range');
    expect(failure(`${base}http: { trust_proxy: [10.0.0.0/33] }\n`)).toContain('http.trust_proxy[0]');
  });

  it('reads outbox.retention_days (7 by default) and names a value that is not a whole number of days from 1', () => {
    const defaults = { retentionDays: 7, concurrency: 64, perDestination: { concurrency: 8, perSecond: null } };
    expect(parseConfig('test.yml', base).config.outbox).toEqual(defaults);
    expect(parseConfig('test.yml', `${base}outbox: { retention_days: 30 }\n`).config.outbox).toEqual({ ...defaults, retentionDays: 30 });
    const zero = failure(`${base}outbox:\n  retention_days: 0\n`);
    expect(zero).toContain('test.yml:5:');
    expect(zero).toContain('outbox.retention_days');
    expect(failure(`${base}outbox: { retention_days: 1.5 }\n`)).toContain('outbox.retention_days');
    expect(failure(`${base}outbox: { retention: 7 }\n`)).toContain('outbox');
  });

  it('reads outbox.concurrency and outbox.per_destination, each key defaulting on its own, and refuses limits below 1', () => {
    const outbox = (yaml: string) => parseConfig('test.yml', `${base}${yaml}`).config.outbox;
    expect(outbox('outbox: { concurrency: 16, per_destination: { per_second: 2.5 } }\n')).toEqual({
      retentionDays: 7,
      concurrency: 16,
      perDestination: { concurrency: 8, perSecond: 2.5 },
    });
    expect(outbox('outbox: { per_destination: { concurrency: 2 } }\n').perDestination).toEqual({ concurrency: 2, perSecond: null });
    const zeroRate = failure(`${base}outbox:\n  per_destination:\n    per_second: 0\n`);
    expect(zeroRate).toContain('test.yml:6:');
    expect(zeroRate).toContain('outbox.per_destination.per_second');
    expect(failure(`${base}outbox: { per_destination: { concurrency: 0 } }\n`)).toContain('outbox.per_destination.concurrency');
    expect(failure(`${base}outbox: { per_destination: { concurrency: 1.5 } }\n`)).toContain('outbox.per_destination.concurrency');
    expect(failure(`${base}outbox: { concurrency: 0 }\n`)).toContain('outbox.concurrency');
    expect(failure(`${base}outbox: { per_destination: { rate: 5 } }\n`)).toContain('outbox.per_destination');
  });

  it('reads chat.rate_limit, each key defaulting on its own, and refuses a limit below 1', () => {
    expect(parseConfig('test.yml', `${base}chat: { rate_limit: { per_minute: 30 } }\n`).config.chat).toEqual({
      rateLimit: { perMinute: 30, perAddressPerMinute: 600 },
    });
    expect(parseConfig('test.yml', `${base}chat: { rate_limit: { per_address_per_minute: 5000 } }\n`).config.chat.rateLimit).toEqual({
      perMinute: 120,
      perAddressPerMinute: 5000,
    });
    expect(failure(`${base}chat: { rate_limit: { per_minute: 0 } }\n`)).toContain('chat.rate_limit.per_minute');
    expect(failure(`${base}chat: { ratelimit: { per_minute: 5 } }\n`)).toContain('chat');
  });

  it('takes Slack admins with or without a team id, and names a malformed user id', () => {
    const admins = `${base}    slack: { admins: [U0123ABCD, W0ENTERPRISE] }\n`;
    expect(parseConfig('test.yml', admins).config.setup.companies[0]!.slack).toEqual({ admins: ['U0123ABCD', 'W0ENTERPRISE'] });
    const channelWithoutTeam = `${admins}    channels:\n      - slack: C1\n        incidents: true\n`;
    expect(failure(channelWithoutTeam)).toContain('needs slack.team_id on the company');
    expect(failure(`${base}    slack: { team_id: T1, admins: ["@alice"] }\n`)).toContain('must be a Slack user id such as U0123ABCD');
  });
});
