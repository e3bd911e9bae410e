import type { DemoTour } from '../../../domain/demo/demo-company.js';
import type { ListedPage } from '../../../domain/status-pages/page-directory.js';
import { Layout } from './layout.js';

export interface HomePageProps {
  publicUrl: string;
  pages: readonly ListedPage[];
  /** The demo, while this server runs it. */
  demo: (DemoTour & DemoHints) | null;
}

/** What is true of this install, for the demo's hints. */
export interface DemoHints {
  /** The demo company's key, when this process made it; else the page says how to get one. */
  key: string | null;
  chat: { slack: boolean; discord: boolean };
  /** Whether this process reads vendors' feeds, and how often. */
  feeds: { read: boolean; intervalSeconds: number };
}

const pagePath = (slug: string) => `/status/${encodeURIComponent(slug)}`;

/** `GET /` of the server's own address: its status pages, the API's reference, and what to try while the demo runs. */
export function HomePage(props: HomePageProps) {
  const { pages, demo } = props;
  return (
    <Layout title="statusbot">
      <h1>This statusbot</h1>
      <section aria-labelledby="pages">
        <h2 id="pages">Status pages</h2>
        {pages.length === 0 ? (
          <p class="muted">
            No status pages yet: a company declares one under <code>status_pages:</code> in the config.
          </p>
        ) : (
          <ul>
            {pages.map((p) => (
              <li>
                <a href={pagePath(p.slug)}>{p.name}</a>
                {p.ownUrl ? <span class="muted"> (on its own host: {p.ownUrl})</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="api">
        <h2 id="api">API</h2>
        <ul>
          <li>
            <a href="/api/docs">API reference</a>: every endpoint of /api/v2, to read and to try
          </li>
          <li>
            <a href="/api/v2/openapi.json">OpenAPI description</a> (/api/v2/openapi.json)
          </li>
          <li>
            <a href="/healthz">Health check</a> (/healthz)
          </li>
        </ul>
        <p>
          Each request to /api/v2 carries a company's API key: <code>Authorization: Bearer KEY</code>.
        </p>
      </section>
      {demo ? <DemoSection publicUrl={props.publicUrl} demo={demo} /> : null}
    </Layout>
  );
}

function DemoSection(props: { publicUrl: string; demo: DemoTour & DemoHints }) {
  const { demo } = props;
  const key = demo.key ?? 'KEY';
  const body = JSON.stringify({ service_id: demo.serviceId, title: 'Checkout errors', status: 'minor', description: 'Some payments fail.' });
  const curl = `curl -s -X POST ${props.publicUrl}/api/v2/incidents \\\n  -H "Authorization: Bearer ${key}" \\\n  -H "Content-Type: application/json" \\\n  -d '${body}'`;
  return (
    <section aria-labelledby="try">
      <h2 id="try">What to try</h2>
      <p>This server runs a demo company, Demo. Its demo services change state on their own: demo-service goes down and up again every 5 minutes.</p>
      <ul>
        {demo.page ? (
          <li>
            The demo's status page: <a href={pagePath(demo.page.slug)}>{demo.page.name}</a>. It shows the Demo API, the demo services, a monitor of this server
            {demo.vendor ? ` and ${demo.vendor}` : ''}.
          </li>
        ) : null}
        {demo.serviceId !== null ? (
          <li>
            Create an incident on the Demo API{demo.page ? '; it shows on the demo page at once' : ''}:
            <pre>
              <code>{curl}</code>
            </pre>
            {demo.key ? null : (
              <p>
                KEY is the demo company's API key, printed once when the demo was made. A new one: <code>statusbot key create --company Demo</code> (with the{' '}
                <code>--db</code> this server uses).
              </p>
            )}
          </li>
        ) : null}
        <li>
          <ChatHint chat={demo.chat} keyText={key} />
        </li>
        {demo.vendor ? (
          <li>
            {demo.feeds.read
              ? `${demo.vendor}'s status is read from its public status feed every ${demo.feeds.intervalSeconds} s; until a read succeeds, the demo page says No data, and why.`
              : `This server reads no vendor feeds (its feeds job is off), so ${demo.vendor} says No data on the demo page.`}
          </li>
        ) : null}
      </ul>
      <p>
        To run without the demo, put <code>demo: false</code> in the config: the demo company, its services, page and incidents are removed.
      </p>
    </section>
  );
}

function ChatHint(props: { chat: DemoHints['chat']; keyText: string }) {
  const { chat, keyText } = props;
  if (!chat.slack && !chat.discord) {
    return (
      <>
        Chat is off. To try it, set <code>SLACK_BOT_TOKEN</code> and <code>SLACK_SIGNING_SECRET</code> (or <code>SLACK_APP_TOKEN</code>), or{' '}
        <code>DISCORD_TOKEN</code> and <code>DISCORD_APPLICATION_ID</code>, and start again.
      </>
    );
  }
  return (
    <>
      {chat.slack ? (
        <>
          In Slack, <code>/statusbot link {keyText}</code> links the workspace to the demo company; then <code>/service demo-service</code> shows its status.{' '}
        </>
      ) : null}
      {chat.discord ? (
        <>
          In Discord, <code>/statusbot link key:{keyText}</code> links the server to the demo company; then <code>/status service:demo-service</code> shows its
          status.
        </>
      ) : null}
    </>
  );
}
