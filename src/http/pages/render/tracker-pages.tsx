import type { Incident } from '../../../domain/model/incident.js';
import type { TrackedService } from '../../../domain/read/pages/tracker-view.js';
import { Layout } from './layout.js';
import { IncidentHeading, IncidentLine, NoData, spanText, Status, Timeline } from './page-parts.js';

/** `{public_url}/services/{urlname}`: a service's status, its components, its incidents of the last 30 days. */
export function ServicePage(props: { service: TrackedService; now: Date }) {
  const { service } = props;
  const now = props.now.getTime();
  return (
    <Layout title={`${service.name} status`}>
      <h1>{service.name}</h1>
      <p class={`banner ${service.status}`} role="status">
        <Status status={service.status} />
        {service.status === 'unknown' ? (
          <span>
            <NoData reason={service.reason} since={service.since} />
          </span>
        ) : null}
      </p>
      {service.page ? (
        <p>
          Shown on <a href={service.page.url}>{service.page.name}</a>
        </p>
      ) : service.statusPageUrl ? (
        <p>
          Its own status page: <a href={service.statusPageUrl}>{service.statusPageUrl}</a>
        </p>
      ) : null}
      {service.components.length > 0 ? (
        <section aria-labelledby="components">
          <h2 id="components">Components</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Component</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {service.components.map((c) => (
                <tr>
                  <td>{c.name}</td>
                  {/* A component's status is as old as the vendor's: not stated when that one is unknown. */}
                  <td>{service.status === 'unknown' ? 'No data' : c.status.replace(/_/g, ' ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {service.maintenances.length > 0 ? (
        <section aria-labelledby="maintenance">
          <h2 id="maintenance">Scheduled maintenance</h2>
          <ul class="plain">
            {service.maintenances.map((m) => (
              <li class="card">
                <div class="row">
                  <strong>{m.url ? <a href={m.url}>{m.name}</a> : m.name}</strong>
                  <span class="muted">{m.startsAt.getTime() <= now ? 'Under way' : 'Scheduled'}</span>
                </div>
                <p class="muted">
                  <time datetime={m.startsAt.toISOString()} data-utc="">
                    {spanText(m.startsAt, m.endsAt)}
                  </time>
                </p>
                {m.components.length > 0 ? <p class="muted affected">Affects: {m.components.join(', ')}</p> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="incidents">
        <h2 id="incidents">Incidents of the last 30 days</h2>
        {service.incidents.length === 0 ? <p class="muted">None.</p> : null}
        <ul class="plain">
          {service.incidents.map((incident) => (
            <IncidentLine incident={incident} href={`/incidents/${incident.id}`} />
          ))}
        </ul>
      </section>
    </Layout>
  );
}

/** `{public_url}/incidents/{id}`: one incident and its updates. */
export function TrackedIncidentPage(props: { incident: Incident; page: { slug: string; name: string } | null }) {
  const { incident } = props;
  return (
    <Layout title={`${incident.title} · ${incident.serviceName}`}>
      <p>
        {props.page ? (
          <a href={`/status/${encodeURIComponent(props.page.slug)}`}>← {props.page.name}</a>
        ) : (
          <a href={`/services/${encodeURIComponent(incident.serviceUrlname)}`}>← {incident.serviceName}</a>
        )}
      </p>
      <IncidentHeading incident={incident} />
      {incident.url ? (
        <p>
          At the source: <a href={incident.url}>{incident.url}</a>
        </p>
      ) : null}
      <section aria-labelledby="updates">
        <h2 id="updates">Updates</h2>
        <Timeline incident={incident} />
      </section>
    </Layout>
  );
}
