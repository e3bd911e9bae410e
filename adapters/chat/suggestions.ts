import type { Company } from '../../src/domain/model/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import { listOpenIncidents } from '../../src/domain/incidents/incident-service.js';
import { listMonitors } from '../../src/domain/monitors/monitor-service.js';
import { listCustomServices, searchServices } from '../../src/domain/services/service-queries.js';
import { clipWithEllipsis as clip } from '../../src/domain/clip-text.js';

export interface Suggestion {
  label: string;
  value: string | number;
}

const MAX = 25;

/**
 * Suggestions for an argument being typed: `service` (any visible service,
 * or the company's own when `ownServices`), `id` (open incidents), `monitor`.
 */
export async function suggest(
  ctx: DomainContext,
  company: Company,
  argument: string,
  typed: string,
  options: { ownServices: boolean; labelMax: number },
): Promise<Suggestion[]> {
  const text = typed.trim().toLowerCase();
  const label = (s: string) => clip(s, options.labelMax);
  switch (argument) {
    case 'id':
      return (await listOpenIncidents(ctx, company))
        .filter((x) => String(x.id).startsWith(text) || x.title.toLowerCase().includes(text))
        .slice(0, MAX)
        .map((x) => ({ label: label(`#${x.id} ${x.title} (${x.serviceName})`), value: x.id }));
    case 'service': {
      const services = options.ownServices
        ? (await listCustomServices(ctx, company)).filter((s) => s.name.toLowerCase().includes(text) || s.urlname.includes(text))
        : await searchServices(ctx, company, text, MAX);
      return services.slice(0, MAX).map((s) => ({ label: label(`${s.name} (${s.urlname})`), value: s.urlname }));
    }
    case 'monitor':
      return (await listMonitors(ctx, company))
        .filter((m) => String(m.id) === text || m.name.toLowerCase().includes(text))
        .slice(0, MAX)
        .map((m) => ({ label: label(`${m.name} (${m.url})`), value: String(m.id) }));
    default:
      return [];
  }
}
