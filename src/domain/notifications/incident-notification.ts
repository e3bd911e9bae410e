import type { IncidentEvent } from '../model/incident.js';
import type { ServiceStatus } from '../model/service.js';

/** What a subscriber receives about an incident; stored as the outbox row's payload. */
export interface IncidentNotification {
  event: `incident.${IncidentEvent}`;
  occurred_at: string;
  status_page: { id: number; name: string; url: string };
  service: { id: number; name: string; urlname: string; status: ServiceStatus };
  incident: {
    id: number;
    title: string;
    status: string;
    resolved: boolean;
    resolution_stage: string | null;
    description: string;
    url: string | null;
    tracker_url: string;
    created_at: string;
    updated_at: string;
    resolved_at: string | null;
  };
}
