import type { MaintenanceEvent, MaintenanceStatus } from '../model/maintenance.js';

/** What a status page subscriber (webhook or email) receives about a maintenance; stored as the outbox row's payload. */
export interface MaintenanceNotification {
  event: `maintenance.${MaintenanceEvent}`;
  occurred_at: string;
  status_page: { id: number; name: string; url: string };
  /** The maintenance's services that this page shows. */
  services: { id: number; name: string; urlname: string }[];
  maintenance: {
    id: number;
    title: string;
    description: string;
    status: MaintenanceStatus;
    starts_at: string;
    ends_at: string;
    tracker_url: string;
    /** The update this event added, if any. */
    update: { status: MaintenanceStatus; description: string; created_at: string } | null;
  };
}
