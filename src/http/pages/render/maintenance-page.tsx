import type { Maintenance, MaintenanceStatus } from '../../../domain/model/maintenance.js';
import type { LinkedPage } from '../../../domain/status-pages/status-pages.js';
import { Layout } from './layout.js';
import { When } from './page-parts.js';
import { TextBlock } from '../../../markup/update-text.js';

const STATUS_WORDS: Record<MaintenanceStatus, string> = {
  scheduled: 'Scheduled',
  in_progress: 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** `{public_url}/maintenances/{id}`: a maintenance, its window, its services and its updates, latest first. */
export function MaintenancePage(props: { maintenance: Maintenance; page: LinkedPage }) {
  const { maintenance: m, page } = props;
  return (
    <Layout title={`${m.title} · ${page.name}`}>
      <p>
        <a href={`/status/${encodeURIComponent(page.slug)}`}>← {page.name}</a>
      </p>
      <h1>{m.title}</h1>
      <p>
        <strong>{STATUS_WORDS[m.status]}</strong> · <When at={m.startsAt} /> – <When at={m.endsAt} />
      </p>
      <p class="muted">Affects: {m.services.map((s) => s.name).join(', ')}</p>
      {m.description ? <TextBlock text={m.description} /> : null}
      <section aria-labelledby="updates">
        <h2 id="updates">Updates</h2>
        <ol class="timeline">
          {[...m.updates].reverse().map((u) => (
            <li>
              <span class="stage">{STATUS_WORDS[u.status]}</span> <When at={u.createdAt} />
              {u.description ? <TextBlock text={u.description} /> : null}
            </li>
          ))}
        </ol>
      </section>
    </Layout>
  );
}
