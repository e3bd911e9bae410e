import type { ComponentChildren } from 'preact';
import type { Incident, IncidentSummary } from '../../../domain/model/incident.js';
import type { PublicPage } from '../../../domain/status-pages/page-directory.js';
import type { PageStatus } from '../../../domain/read/pages/page-status.js';
import { BAR_DAYS } from '../../../domain/read/pages/service-days.js';
import type { PageGroupView, PageView } from '../../../domain/read/pages/page-view.js';
import type { ShownStatus } from '../../../domain/model/shown-status.js';
import { Layout } from './layout.js';
import { TextBlock } from './update-text.js';
import {
  Affected,
  BANNER_WORDS,
  DayBars,
  IncidentCard,
  IncidentHeading,
  IncidentLine,
  NoData,
  percent,
  Status,
  STATUS_WORDS,
  Timeline,
  When,
} from './page-parts.js';

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
      {view.maintenance.length > 0 ? (
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
      ) : null}
      <section aria-labelledby="services">
        <h2 id="services">Services</h2>
        {view.services.length === 0 ? <p class="muted">This page shows no services yet.</p> : null}
        <ul class="plain">
          {shownInOrder(view).map((item) =>
            'group' in item ? (
              <li class="group">
                <h3>{item.group.name}</h3>
                <ul class="plain">
                  {item.services.map((s) => (
                    <ServiceCard service={s} Heading="h4" />
                  ))}
                </ul>
              </li>
            ) : (
              <ServiceCard service={item} Heading="h3" />
            ),
          )}
        </ul>
      </section>
      {props.monitors}
      {view.vendors.length > 0 ? (
        <section aria-labelledby="vendors">
          <h2 id="vendors">Services we depend on</h2>
          <ul class="plain">
            {view.vendors.map((v) => (
              <li class="card">
                <div class="row">
                  <a href={v.trackerUrl}>{v.name}</a>
                  <Status status={v.status} />
                </div>
                {v.status === 'unknown' ? (
                  <p class="muted">
                    <NoData reason={v.reason} since={v.since} />
                  </p>
                ) : null}
                {v.open.map((i) => (
                  <>
                    <p class="muted">{i.title}</p>
                    <Affected components={i.components} />
                  </>
                ))}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
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

const MARK_CLASS: Record<PageStatus, ShownStatus> = {
  ok: 'ok',
  minor: 'minor',
  partial: 'major',
  major: 'major',
  maintenance: 'maintenance',
  unknown: 'unknown',
  empty: 'unknown',
};

type PageService = PageView['services'][number];

/** The page's services in order, those of a group gathered under it (in the group's order) where its first service stands. */
type ShownItem = PageService | { group: PageGroupView; services: PageService[] };

function shownInOrder(view: PageView): ShownItem[] {
  const groupOf = new Map(view.groups.flatMap((g) => g.serviceIds.map((id) => [id, g] as const)));
  const placed = new Set<PageGroupView>();
  return view.services.flatMap((s): ShownItem[] => {
    const group = groupOf.get(s.id);
    if (!group) return [s];
    if (placed.has(group)) return [];
    placed.add(group);
    return [{ group, services: group.serviceIds.map((id) => view.services.find((member) => member.id === id)!) }];
  });
}

function ServiceCard(props: { service: PageService; Heading: 'h3' | 'h4' }) {
  const { service: s, Heading } = props;
  return (
    <li class="card">
      <div class="row">
        <Heading>{s.name}</Heading>
        <Status status={s.status} />
      </div>
      <DayBars days={s.days} label={`${s.name}, the last ${s.days.length} days`} />
      <p class="muted">{s.uptime === null ? 'No data yet' : `${percent(s.uptime)} uptime over the days shown`}</p>
    </li>
  );
}

/**
 * The page's own status, said once on a filled band with the way to subscribe
 * beside it (the form is at the page's end); below, what makes it so (monitors
 * down, monitors not probed yet) and, not counted in it, its vendors in trouble.
 */
function Banner(props: { view: PageView }) {
  const { health, vendors } = props.view;
  const troubled = vendors.filter((v) => v.status !== 'ok');
  return (
    <div class="banner-block">
      <div class={`banner ${health.status}`}>
        <p role="status">
          <span class={`status ${MARK_CLASS[health.status]}`}>{BANNER_WORDS[health.status]}</span>
        </p>
        <a href="#subscribe">Subscribe</a>
      </div>
      {health.down.length > 0 ? <p class="banner-note">Down: {health.down.join(', ')}</p> : null}
      {health.unprobed.length > 0 ? <p class="banner-note muted">No data yet (not probed): {health.unprobed.join(', ')}</p> : null}
      {troubled.length > 0 ? (
        <p class="banner-note">
          Third-party:{' '}
          {troubled.map((v, i) => (
            <>
              {i > 0 ? '; ' : null}
              <a href={v.trackerUrl}>{v.name}</a> — {STATUS_WORDS[v.status]}
            </>
          ))}
        </p>
      ) : null}
    </div>
  );
}

/** Said when no incident is open and none was resolved in the last 7 days: whether the bars show any. */
function NoIncidents(props: { view: PageView }) {
  const { view } = props;
  if (view.open.length > 0 || view.recent.length > 0 || view.services.length === 0) return null;
  const any = view.services.some((s) => s.days.some((d) => d.incidents.length > 0));
  return (
    <section aria-labelledby="incidents">
      <h2 id="incidents">Incidents</h2>
      <p class="muted">{any ? 'No incidents in the last 7 days.' : `No incidents in the last ${BAR_DAYS} days.`}</p>
    </section>
  );
}

function SubscribeForm(props: { base: string; services: readonly { name: string; urlname: string }[] }) {
  return (
    <section aria-labelledby="subscribe">
      <h2 id="subscribe">Get updates by email</h2>
      <form class="subscribe" method="post" action={`${props.base}/subscribe`}>
        <label>
          Email address
          <input type="email" name="email" required autocomplete="email" maxlength={254} />
        </label>
        {props.services.length > 1 ? (
          <fieldset>
            <legend>Only these services (none ticked: all)</legend>
            {props.services.map((s) => (
              <label>
                <input type="checkbox" name="service" value={s.urlname} />
                {s.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        <button type="submit">Subscribe</button>
      </form>
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
