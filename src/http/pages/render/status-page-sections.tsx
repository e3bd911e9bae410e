import type { PageStatus } from '../../../domain/read/pages/page-status.js';
import { BAR_DAYS } from '../../../domain/read/pages/service-days.js';
import type { PageGroupView, PageView } from '../../../domain/read/pages/page-view.js';
import type { ShownStatus } from '../../../domain/model/shown-status.js';
import { Affected, BANNER_WORDS, DayBars, NoData, percent, Status, STATUS_WORDS } from './page-parts.js';

/** The services with their days, those of a group under the group's name. */
export function ServicesSection(props: { view: PageView }) {
  const { view } = props;
  return (
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
  );
}

/** The vendors the page depends on, with their open incidents; "No data" for one whose feed is not read. */
export function VendorsSection(props: { view: PageView }) {
  const { view } = props;
  if (view.vendors.length === 0) return null;
  return (
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
export function Banner(props: { view: PageView }) {
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
export function NoIncidents(props: { view: PageView }) {
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

export function SubscribeForm(props: { base: string; services: readonly { name: string; urlname: string }[] }) {
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
