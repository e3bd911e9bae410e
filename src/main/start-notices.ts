import type { AddressInfo } from 'node:net';
import { databaseLabel } from '../db/database.js';
import { isPostgresUrl } from '../db/database-url.js';
import type { DomainContext } from '../domain/context.js';
import type { DemoSeed } from '../domain/setup/demo-setup.js';
import { DEMO_BOARD_ID, demoTour } from '../domain/demo/demo-company.js';
import { API_DOCS_PATH } from '../http/api-docs.js';
import type { Logger } from '../infrastructure/logger.js';

/** A notice as the fields of a log line: its `msg`, and what it names (home, api_docs, demo_api_key…). */
export type Notice = { msg: string } & Record<string, string>;

/** Where the start writes what is meant for the operator's eyes, not the log: the demo key, how to get a key. */
export const printNotice = (text: string): void => void process.stdout.write(`${text}\n`);

/** The server's base URL from the address it listens on: `localhost` when that is every address of the machine. */
export function listeningUrl(bound: AddressInfo): string {
  const every = bound.address === '0.0.0.0' || bound.address === '::';
  return `http://${every ? 'localhost' : bracketed(bound.address)}:${bound.port}`;
}

const bracketed = (a: string) => (a.includes(':') ? `[${a}]` : a);

export interface StartAnnouncement {
  ctx: DomainContext;
  logger: Logger;
  notice: (text: string, fields: Notice) => void;
  bound: AddressInfo;
  url: string;
  /** The config's public_url, which the links use when set. */
  publicUrl: string | null;
  demoOn: boolean;
  dbPath: string;
  /** The demo company as this start found or made it; null when the demo is off or the config names companies. */
  demo: DemoSeed | null;
}

/** What a start says once it listens: the log's line, then for the operator where to click and how to get a key. */
export async function announceStart(a: StartAnnouncement): Promise<void> {
  const { bound, notice } = a;
  const every = bound.address === '0.0.0.0' || bound.address === '::';
  const reach = every ? `every ${bound.address === '::' ? '' : 'IPv4 '}address of this machine; ` : '';
  // Read before the start says it listens: once it has, the start is done and a stop has no start to wait for.
  const whereToClick = await startLines(a.ctx, a.publicUrl ?? a.url, a.demoOn);
  a.logger.info(`statusbot listening on http://${bracketed(bound.address)}:${bound.port} (${reach}database ${databaseLabel(a.dbPath)})`);
  a.logger.flush?.();
  notice(whereToClick.text, whereToClick.fields);
  if (a.demo && !a.demo.created) {
    const hint = keyHint(a.demo.companies, a.dbPath);
    notice(hint.join('\n'), { msg: hint.map((l) => l.trim()).join(' '), command: hint[1]!.trim() });
  }
  if (a.demo?.created) {
    const demoKey = a.demo.key;
    const intro = 'Created the demo company "Demo". Its API key, shown this once:';
    const curl = `curl -s -H "Authorization: Bearer ${demoKey}" ${a.url}/api/v2/boards/${DEMO_BOARD_ID}`;
    notice(['', intro, `  ${demoKey}`, 'Try:', `  ${curl}`, ''].join('\n'), {
      msg: `${intro.slice(0, -1)} in demo_api_key`,
      demo_api_key: demoKey,
      try: curl,
    });
  }
}

/** Where to click, for the operator: the home, the demo's page while the demo runs, the API's reference. */
async function startLines(ctx: DomainContext, base: string, demoOn: boolean): Promise<{ text: string; fields: Notice }> {
  const at = base.replace(/\/+$/, '');
  const page = demoOn ? (await demoTour(ctx))?.page : null;
  const where = { home: `${at}/`, ...(page ? { demo_page: `${at}/status/${encodeURIComponent(page.slug)}` } : {}), api_docs: `${at}${API_DOCS_PATH}` };
  const lines = [`Home:      ${where.home}`, ...(where.demo_page ? [`Demo page: ${where.demo_page}`] : []), `API docs:  ${where.api_docs}`];
  return { text: lines.join('\n'), fields: { msg: lines.map((l) => l.replace(/ +/g, ' ')).join(', '), ...where } };
}

/** A shell word: as it is when the shell leaves it so, else in single quotes. */
const shellWord = (s: string) => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** A start on a database that already holds companies shows no key: how to get one. */
function keyHint(companies: string[], dbPath: string): [string, string] {
  const name = companies.length === 1 ? shellWord(companies[0]!) : 'NAME';
  const db = isPostgresUrl(dbPath) ? '<the same postgres:// URL>' : shellWord(dbPath);
  const held = companies.length === 1 ? `the company ${companies[0]}` : `companies ${companies.slice(0, 5).join(', ')}${companies.length > 5 ? ', …' : ''}`;
  return [
    `No API key is shown: a key is shown once, when made, and this database already holds ${held}. A new key:`,
    `  statusbot key create --company ${name} --db ${db}`,
  ];
}
