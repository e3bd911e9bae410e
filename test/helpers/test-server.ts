import { parseConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/load-config.js';
import { manualClock, runningClock } from '../../src/domain/clock.js';
import type { ManualClock } from '../../src/domain/clock.js';
import { startServer } from '../../src/main.js';
import type { RunningServer, StartOptions } from '../../src/main.js';
import { apiDocumentCheck } from './api-document.js';
import { createTestDatabase } from './test-database.js';
import { quietLogger } from './loggers.js';
import type { Logger } from '../../src/infrastructure/logger.js';

export const T0 = '2026-11-22T10:02:00.000Z';

export const ACME_KEY = 'acme-key-1';
export const GLOBEX_KEY = 'globex-key-1';
export const FREE_KEY = 'initech-key-1';
export const ACME_BOARD = '5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01';
export const GLOBEX_BOARD = '7a1c2b3d-0000-4000-8000-00000000beef';

/** Outbox delivery with short retries, for tests that watch messages arrive. */
export const FAST_DELIVERY = { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } as const;

/** The example config of the README's configuration section, verbatim: it must keep working exactly as written. */
export const README_EXAMPLE_CONFIG = `public_url: http://localhost:8080
services:
  - urlname: acme-cloud
    name: Acme Cloud
    status_page_url: https://status.acme-cloud.example
companies:
  - name: Acme
    plan: business
    api_keys: ["acme-key-1"]
    monitored_services: [demo-service-minor]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Login, url: "http://127.0.0.1:9/login", probe_type: keyword, keyword: "Sign in" }
    boards:
      - id: 5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service, tags: [core] }
`;

/**
 * Acme with one custom service on one status page: the config the delivery
 * tests start from. `top` adds top-level keys; `subscribers` are the page's
 * entries (YAML flow maps); `company` adds keys of Acme, indented by 4.
 */
export function acmeConfig(options: { top?: string; subscribers?: string[]; company?: string } = {}): string {
  const subscribers = options.subscribers?.length ? `        subscribers:\n${options.subscribers.map((s) => `          - ${s}\n`).join('')}` : '';
  return `
public_url: http://status.test
${options.top ?? ''}
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - name: Acme status
        url: https://status.acme.example
        services: [acme-api]
${subscribers}${options.company ?? ''}
`;
}

/** A page's webhook subscriber, as `acmeConfig` takes it. */
export const webhookEntry = (url: string, secret = 'whsec-0123456789abcdef') => `{ webhook: "${url}", secret: "${secret}" }`;

/** Two business companies and one on the free plan, as in the README's example. */
export const STANDARD_CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - urlname: acme-cloud
    name: Acme Cloud
    status_page_url: https://status.acme-cloud.example
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    monitored_services: [demo-service-minor]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Login, url: "http://127.0.0.1:9/login", probe_type: keyword, keyword: "Sign in" }
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service, tags: [core] }
    status_pages:
      - name: Acme status
        url: https://status.acme.example
        services: [acme-api]
        subscribers:
          - { webhook: "https://hooks.acme.example/statusbot", secret: "0123456789abcdef0123" }
          - { webhook: "https://oncall.acme.example/hook", secret: "fedcba9876543210fedc" }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
    custom_monitors:
      - { id: 601, name: Globex home, url: "http://127.0.0.1:9/", probe_type: ping }
    boards:
      - id: ${GLOBEX_BOARD}
        name: Globex vendors
        urlname: vendors
        services: []
  - name: Initech
    plan: free
    api_keys: ["${FREE_KEY}"]
    monitored_services: [demo-service-minor]
`;

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dbPath: string;
  /** A request with a JSON body and an API key; returns status, headers and parsed body. */
  api(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  config?: string | Config;
  clock?: ManualClock;
  dbPath?: string;
  /**
   * Chat credentials and API URLs (none by default: both adapters off, but
   * notifications to both queued, for the tests that read them). Given, a
   * platform it lacks is off: nothing is queued for its channels.
   */
  env?: NodeJS.ProcessEnv;
  /** Outbox delivery; off by default so that tests can read the pending rows. */
  delivery?: StartOptions['delivery'];
  /** The job scheduler; off by default (tests run jobs directly). */
  jobs?: boolean;
  /**
   * Whether `api()` checks every answer of `/api/v2` against the API description
   * (test/helpers/api-document.ts) and throws on a mismatch; on by default.
   */
  checkApiDocument?: boolean;
  /** Where the server logs (quiet but for errors by default). */
  logger?: Logger;
  /** Wraps the server's metrics hooks (see StartOptions). */
  metrics?: StartOptions['metrics'];
  /** Called once per request answered (see StartOptions). */
  onRequestFinished?: StartOptions['onRequestFinished'];
  /** A port known before the start (for a config that names it); a free one by default. */
  port?: number;
}

const isApiPath = (path: string) => /^\/api\/v2(?:[/?]|$)/.test(path);

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const fresh = options.dbPath ? null : await createTestDatabase();
  const dbPath = options.dbPath ?? fresh!.path;
  // Delivery retries wait on the clock: with delivery on, time runs (from T0); else it stands still at T0.
  const clock = options.clock ?? (options.delivery?.enabled ? runningClock(T0) : manualClock(T0));
  const config =
    typeof options.config === 'string' ? parseConfig('test.yml', options.config).config : (options.config ?? parseConfig('test.yml', STANDARD_CONFIG).config);
  const server = await startServer({
    dbPath,
    port: options.port ?? 0,
    host: '127.0.0.1',
    config,
    clock,
    logger: options.logger ?? quietLogger,
    env: options.env ?? {},
    ...(options.env ? {} : { chatOff: new Map() }),
    delivery: options.delivery ?? { enabled: false },
    jobs: options.jobs ?? false,
    metrics: options.metrics,
    onRequestFinished: options.onRequestFinished,
    // What a start prints for the operator (a demo key, how to get a key): tests read `demoKey`.
    notice: () => {},
  });
  return {
    ...server,
    clock,
    dbPath,
    async api(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? ACME_KEY : opts.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
      }
      const answer = { status: res.status, headers: res.headers, body: parsed, text };
      if ((options.checkApiDocument ?? true) && isApiPath(path)) {
        const problems = apiDocumentCheck().problems({ method, path, ...answer });
        if (problems.length > 0) {
          throw new Error(`${method} ${path} answered ${res.status}, not as the API description says:\n  ${problems.join('\n  ')}`);
        }
      }
      return answer;
    },
    async stop() {
      await server.close();
      await fresh?.drop();
    },
  };
}
