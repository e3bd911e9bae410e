import type { Migration } from 'kysely';
import * as m0001 from './0001_init.js';
import * as m0002 from './0002_chat.js';
import * as m0003 from './0003_jobs.js';
import * as m0004 from './0004_chat_admins.js';
import * as m0005 from './0005_vendor_feeds.js';
import * as m0006 from './0006_change_counter.js';
import * as m0007 from './0007_probe_schedule.js';
import * as m0008 from './0008_public_pages.js';
import * as m0009 from './0009_api_key_management.js';
import * as m0010 from './0010_audit_events.js';
import * as m0011 from './0011_seen_chat_requests.js';
import * as m0012 from './0012_audit_config_index.js';
import * as m0013 from './0013_vendor_truth.js';
import * as m0014 from './0014_drop_page_service_status.js';
import * as m0015 from './0015_fixed_catalog_ids.js';
import * as m0016 from './0016_outbox_lease_token.js';
import * as m0017 from './0017_maintenances.js';
import * as m0018 from './0018_page_layout_and_suppressions.js';
import * as m0019 from './0019_probe_kinds.js';
import * as m0020 from './0020_regions.js';
import * as m0021 from './0021_alerts.js';
import * as m0022 from './0022_notify_destinations.js';
import * as m0023 from './0023_incident_rooms.js';
import * as m0024 from './0024_probe_region_hours.js';
import * as m0025 from './0025_agent_report_runs.js';
import * as m0026 from './0026_agent_report_drops.js';
import * as m0027 from './0027_update_service_states.js';

/** Every migration, by name; the Migrator applies them in name order. Add new ones here. */
export const migrations: Record<string, Migration> = {
  '0001_init': m0001,
  '0002_chat': m0002,
  '0003_jobs': m0003,
  '0004_chat_admins': m0004,
  '0005_vendor_feeds': m0005,
  '0006_change_counter': m0006,
  '0007_probe_schedule': m0007,
  '0008_public_pages': m0008,
  '0009_api_key_management': m0009,
  '0010_audit_events': m0010,
  '0011_seen_chat_requests': m0011,
  '0012_audit_config_index': m0012,
  '0013_vendor_truth': m0013,
  '0014_drop_page_service_status': m0014,
  '0015_fixed_catalog_ids': m0015,
  '0016_outbox_lease_token': m0016,
  '0017_maintenances': m0017,
  '0018_page_layout_and_suppressions': m0018,
  '0019_probe_kinds': m0019,
  '0020_regions': m0020,
  '0021_alerts': m0021,
  '0022_notify_destinations': m0022,
  '0023_incident_rooms': m0023,
  '0024_probe_region_hours': m0024,
  '0025_agent_report_runs': m0025,
  '0026_agent_report_drops': m0026,
  '0027_update_service_states': m0027,
};
