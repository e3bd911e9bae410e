import type { ComponentChildren } from 'preact';
import type { Incident, IncidentSummary } from '../../../domain/model/incident.js';
import type { PublicPage } from '../../../domain/status-pages/page-directory.js';
import type { PageView } from '../../../domain/read/pages/page-view.js';
import { Layout } from './layout.js';
import { TextBlock } from '../../../markup/update-text.js';
import { Banner, NoIncidents, ServicesSection, SubscribeForm, VendorsSection } from './status-page-sections.js';
import { IncidentCard, IncidentHeading, IncidentLine, Timeline, When } from './page-parts.js';

/** The feeds of a page, for the head and the footer links. */
const feedsOf = (base: string, name: string) => [
  { href: `${base}/feed.atom`, type: 'application/atom+xml', title: `${name} (Atom)` },
  { href: `${base}/feed.rss`, type: 'application/rss+xml', title: `${name} (RSS)` },
];

function PageFrame(props: { page: PublicPage; base: string; title?: string; children: ComponentChildren }) {
  return (
    <Layout title={props.title ?? props.page.name} base={props.base} pageName={props.page.name} feeds={feedsOf(props.base, props.page.name)}>
      {props.children}
    </Layout>
  );
}

/** `GET /status/{slug}`: the banner, services with their 90 days, incidents, maintenance, vendors, subscribing, feeds. */
export function StatusPage(props: { view: PageView; base: string; monitors?: ComponentChildren }) {
  const { view, base } = props;
  return (
    <PageFrame page={view.page} base={base}>
      <h1 class="sr-only">{view.page.name}</h1>
      <Banner view={view} />
      {view.open.length > 0 ? (
        <section aria-labelledby="open">
          <h2 id="open">Current incidents</h2>
          {view.open.map((incident) => (
            <IncidentCard incident={incident} href={`${base}/incidents/${incident.id}`} />
          ))}
        </section>
      ) : null}
      <MaintenanceSection view={view} />
      <ServicesSection view={view} />
      {props.monitors}
      <VendorsSection view={view} />
      <NoIncidents view={view} />
      {view.recent.length > 0 ? (
        <section aria-labelledby="recent">
          <h2 id="recent">Resolved in the last 7 days</h2>
          <ul class="plain">
            {view.recent.map((incident) => (
              <IncidentLine incident={incident} href={`${base}/incidents/${incident.id}`} />
            ))}
          </ul>
        </section>
      ) : null}
      <p>
        <a href={`${base}/history`}>Incident history</a>
      </p>
      <SubscribeForm base={base} services={view.services} />
      <p class="feeds">
        Follow: <a href={`${base}/feed.atom`}>Atom</a>
        <a href={`${base}/feed.rss`}>RSS</a>
        <a href={`${base}/api/v2/summary.json`}>JSON</a>
        <a href={`${base}/badge.svg`}>Badge</a>
      </p>
      {/* A page that never showed anything has no date of change. */}
      {view.updatedAt.getTime() > 0 ? (
        <p class="muted">
          Updated <When at={view.updatedAt} />
        </p>
      ) : null}
    </PageFrame>
  );
}

/** Maintenance in progress or scheduled, each with its window and what it is about. */
function MaintenanceSection(props: { view: PageView }) {
  const { view } = props;
  if (view.maintenance.length === 0) return null;
  return (
    <section aria-labelledby="maintenance">
      <h2 id="maintenance">Maintenance</h2>
      <ul class="plain">
        {view.maintenance.map((m) => (
          <li class="card">
            <div class="row">
              <strong>{m.title === null ? m.serviceName : m.id === null ? m.title : <a href={`/maintenances/${m.id}`}>{m.title}</a>}</strong>
              <span class="muted">{m.active ? 'In progress' : 'Scheduled'}</span>
            </div>
            <p class="muted">
              <When at={m.startsAt} /> – <When at={m.endsAt} />
              {m.title === null ? null : ` · ${m.serviceName}`}
            </p>
            {m.description ? <TextBlock text={m.description} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `GET /status/{slug}/incidents/{id}`: one incident and all its updates. */
export function IncidentPage(props: { page: PublicPage; incident: Incident; base: string }) {
  const { incident, base } = props;
  return (
    <PageFrame page={props.page} base={base} title={`${incident.title} · ${props.page.name}`}>
      <p>
        <a href={base === '' ? '/' : base}>← {props.page.name}</a>
      </p>
      <IncidentHeading incident={incident} />
      <section aria-labelledby="updates">
        <h2 id="updates">Updates</h2>
        <Timeline incident={incident} />
      </section>
    </PageFrame>
  );
}

/** `GET /status/{slug}/history`: past incidents, newest first, paged. */
export function HistoryPage(props: { page: PublicPage; incidents: readonly IncidentSummary[]; number: number; more: boolean; base: string }) {
  const { base } = props;
  return (
    <PageFrame page={props.page} base={base} title={`Incident history · ${props.page.name}`}>
      <p>
        <a href={base === '' ? '/' : base}>← {props.page.name}</a>
      </p>
      <h1>Incident history</h1>
      {props.incidents.length === 0 ? <p class="muted">No incidents{props.number > 1 ? ' on this page' : ' so far'}.</p> : null}
      <ul class="plain">
        {props.incidents.map((incident) => (
          <IncidentLine incident={incident} href={`${base}/incidents/${incident.id}`} />
        ))}
      </ul>
      <nav class="pager" aria-label="Pages">
        {props.number > 1 ? <a href={`${base}/history${props.number === 2 ? '' : `?page=${props.number - 1}`}`}>← Newer</a> : <span />}
        {props.more ? <a href={`${base}/history?page=${props.number + 1}`}>Older →</a> : <span />}
      </nav>
    </PageFrame>
  );
}
