import type { Generated } from 'kysely';

/** Table types as stored: timestamps are epoch milliseconds, booleans 0/1, arrays JSON text. */
export interface CompaniesTable {
  id: Generated<number>;
  name: string;
  plan: 'free' | 'business';
  notify_on: string;
  /** 1: a new major incident gets a chat channel of its own (`chat.incident_channels`). */
  incident_channels: Generated<number>;
  created_at: number;
  /** The label of an alert that names the custom service it is about (its urlname or name). */
  alert_service_label: Generated<string>;
  /** The custom service of alerts whose label names none. */
  alert_default_service_id: number | null;
  /** A monitor is down when at least this many regions see it down. */
  region_quorum: Generated<number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  company_id: number;
  key_hash: string;
  label: string;
  /** The first characters of a key statusbot issued (null for keys from a config). */
  key_prefix: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** A probe agent's token: the region it probes from (it opens the agent's endpoints only); null for an API key. */
  agent_region: Generated<string | null>;
}

export type DemoBehaviour = 'cycle' | 'ok' | 'minor' | 'major';

export interface ServicesTable {
  id: Generated<number>;
  urlname: string;
  name: string;
  status_page_url: string | null;
  company_id: number | null;
  demo: DemoBehaviour | null;
  feed_kind: FeedKind | null;
  feed_url: string | null;
  poll_always: Generated<number>;
  created_at: number;
}

export interface VendorFeedsTable {
  service_id: number;
  indicator: 'ok' | 'minor' | 'major' | 'maintenance' | null;
  components: Generated<string>;
  validators: Generated<string>;
  fingerprint: string | null;
  ingested: Generated<number>;
  last_checked_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  failures: Generated<number>;
  next_poll_at: Generated<number>;
  lease_until: number | null;
  stale_at: number | null;
  skipped: string | null;
  maintenances: Generated<string>;
}

export interface UserReportsTable {
  id: Generated<number>;
  service_id: number;
  reporter: string;
  component: string | null;
  description: Generated<string>;
  created_at: number;
}

export interface MaintenanceWindowsTable {
  id: Generated<number>;
  service_id: number;
  starts_at: number;
  ends_at: number;
}

export type MaintenanceStatus = 'scheduled' | 'in_progress' | 'completed' | 'cancelled';

export interface MaintenancesTable {
  id: Generated<number>;
  company_id: number;
  title: string;
  description: string;
  status: MaintenanceStatus;
  starts_at: number;
  ends_at: number;
  created_at: number;
  updated_at: number;
}

export interface MaintenanceServicesTable {
  maintenance_id: number;
  service_id: number;
}

export interface MaintenanceUpdatesTable {
  id: Generated<number>;
  maintenance_id: number;
  status: MaintenanceStatus;
  description: string;
  created_at: number;
}

export interface CompanyMonitoredServicesTable {
  company_id: number;
  service_id: number;
}

export interface IncidentsTable {
  id: Generated<number>;
  service_id: number;
  title: string;
  status: 'minor' | 'major';
  description: string;
  resolved: number;
  url: string | null;
  user_generated: Generated<number>;
  severity_from_provider: string | null;
  components: Generated<string>;
  external_key: string | null;
  created_at: number;
  updated_at: number;
  /** When it was resolved; on an open demo outage written ahead, when its period ends (see domain/demo/demo-view.ts). */
  resolved_at: number | null;
}

export type ResolutionStage = 'investigating' | 'identified' | 'monitoring' | 'resolved';

/** How a vendor's status feed is read (see src/ingest/). */
export type FeedKind = 'statuspage' | 'rss' | 'atom' | 'gcp' | 'instatus' | 'slack' | 'statusio' | 'betterstack' | 'incidentio' | 'salesforce';

export interface IncidentUpdatesTable {
  id: Generated<number>;
  incident_id: number;
  stage: ResolutionStage;
  description: string;
  created_at: number;
  /**
   * The service's status just before the change that posted the update, and just after it; null where it was not
   * recorded (updates written before it was, and those a change posted ahead of its last, as a feed catching up).
   */
  service_status_before: Generated<ServiceStatusValue | null>;
  service_status_after: Generated<ServiceStatusValue | null>;
}

/** A service's status as stored (see domain/services/service.ts). */
export type ServiceStatusValue = 'ok' | 'minor' | 'major' | 'maintenance';

export interface CustomMonitorsTable {
  id: Generated<number>;
  company_id: number;
  name: string;
  url: string;
  probe_type: 'ping' | 'keyword' | 'tcp' | 'dns' | 'tls' | 'heartbeat';
  keyword: string | null;
  interval_seconds: number;
  /** dns: the record type asked for (A, AAAA, CNAME, MX, TXT, NS). */
  dns_record: string | null;
  /** dns: JSON list of the answers that count as up; null: any answer. */
  dns_expect: string | null;
  /** dns: the resolver asked (`address` or `address:port`); null: the system's. */
  dns_server: string | null;
  /** tls: down when the certificate expires within this many days. */
  days_before_expiry: number | null;
  /** heartbeat: how long past `interval_seconds` a ping may be late. */
  grace_seconds: number | null;
  /** heartbeat: the secret of its push address. */
  heartbeat_token: string | null;
  /** heartbeat: the last ping, or when the monitor began to expect them. */
  last_heartbeat_at: number | null;
  status: 'ok' | 'down';
  consecutive_failures: Generated<number>;
  /** When its next probe is due; moved on by the process that takes the probe. */
  next_probe_at: Generated<number>;
  /** The custom service it watches, if any: a maintenance of that service pauses it. */
  service_id: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

/** The latest result of a monitor in one region. */
export interface MonitorRegionsTable {
  monitor_id: number;
  region: string;
  consecutive_failures: number;
  /** Why the last probe failed; null after a success. */
  reason: string | null;
  latency_ms: number | null;
  checked_at: number;
}

/** When a probe agent last reported, and how many results it dropped while the server was away. */
export interface AgentReportsTable {
  key_id: number;
  last_report_at: number;
  dropped: Generated<number>;
  /** The agent process whose results came last (the `run` of its batches), and the last of them recorded (`seq`). */
  run: string | null;
  last_seq: number | null;
  /** The drops of that run recorded so far (its total, as the agent last reported it); null before an agent reported it. */
  run_dropped: number | null;
}

export interface MonitorIncidentsTable {
  id: Generated<number>;
  monitor_id: number;
  description: string;
  resolved: number;
  created_at: number;
  updated_at: number;
  resolved_at: number | null;
}

export interface BoardsTable {
  id: string;
  company_id: number;
  name: string;
  urlname: string;
  created_at: number;
}

export interface BoardServicesTable {
  board_id: string;
  service_id: number;
  tags: string;
  position: number;
  created_at: number;
}

export interface StatusPagesTable {
  id: Generated<number>;
  company_id: number;
  name: string;
  /** The page's public address: the configured url, else {public_url}/status/{slug}. */
  url: string;
  /** Served at {public_url}/status/{slug}. */
  slug: string;
  /** The host of the configured url when the page has one of its own (served at / for that Host), else null. */
  host: string | null;
  /** JSON list of catalog service urlnames shown live beside the company's services. */
  third_party: Generated<string>;
  /** JSON list of custom monitor ids shown with uptime and response time. */
  monitors: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface EmailSubscribersTable {
  id: Generated<number>;
  status_page_id: number;
  email: string;
  state: 'pending' | 'confirmed';
  origin: 'config' | 'form';
  /** JSON list of the service ids followed; null: all the page shows. */
  services: string | null;
  created_at: number;
  confirmed_at: number | null;
}

/** Probe results of a custom monitor, rolled up per hour. */
export interface ProbeHoursTable {
  monitor_id: number;
  /** Start of the hour, epoch ms. */
  hour: number;
  probes: number;
  ups: number;
  total_ms: number;
  max_ms: number;
}

/** The same, per region that probed (the server's own and each probe agent's). */
export interface ProbeRegionHoursTable extends ProbeHoursTable {
  region: string;
}

export interface StatusPageServicesTable {
  status_page_id: number;
  service_id: number;
  updated_at: number;
  /** The service's place in the config's list of the page's services. */
  position: Generated<number>;
  /** The group (heading) it is shown under; null: none. */
  group_name: string | null;
}

export interface EmailSuppressionsTable {
  status_page_id: number;
  /** SHA-256 of the address in lower case. */
  address_digest: string;
  suppressed_at: number;
}

export interface SubscribersTable {
  id: Generated<number>;
  status_page_id: number;
  kind: 'webhook';
  target: string;
  secret: string | null;
  created_at: number;
}

export interface OutboxTable {
  id: Generated<number>;
  company_id: number;
  subscriber_id: number | null;
  stream: string;
  event: string;
  payload: string;
  state: 'pending' | 'sent' | 'dead';
  attempts: Generated<number>;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  /** JSON: the steps of a multi-step delivery already confirmed by the platform. */
  progress: string | null;
  /** Until when one process holds the row for delivery. */
  lease_until: number | null;
  /** The claim that holds the lease: renewing it, marking the row and saving progress are its alone. */
  lease_token: string | null;
}

export type NotifyKind = 'pagerduty' | 'opsgenie' | 'teams' | 'telegram';

/** A company's paging or chat destination (see domain/notifications/notify-destination.ts). */
export interface NotifyDestinationsTable {
  id: Generated<number>;
  company_id: number;
  kind: NotifyKind;
  /** JSON, secrets included: read by the destination's publisher only. */
  settings: string;
  /** Digest of kind and settings: the entry's identity across applies. */
  config_key: string;
  created_at: number;
}

/** The first message a destination posted about an incident, which later ones reply to. */
export interface NotifyMessagesTable {
  destination_id: number;
  incident_id: number;
  message_id: string;
  created_at: number;
}

export type ChatPlatform = 'slack' | 'discord';

export interface IncidentLeadsTable {
  incident_id: number;
  platform: ChatPlatform;
  user_id: string;
  set_by: string;
  set_at: number;
}

export type IncidentRoomState = 'opening' | 'open' | 'failed';

export interface IncidentRoomsTable {
  incident_id: number;
  platform: ChatPlatform;
  workspace_id: string;
  channel_id: string | null;
  name: string;
  state: IncidentRoomState;
  attempt: number;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface IncidentNotesTable {
  id: Generated<number>;
  incident_id: number;
  platform: ChatPlatform;
  author_id: string;
  text: string;
  message_id: string | null;
  created_at: number;
}

export interface ChatLinksTable {
  platform: ChatPlatform;
  workspace_id: string;
  company_id: number;
  created_at: number;
}

export interface ChatAdminsTable {
  company_id: number;
  platform: ChatPlatform;
  user_id: string;
}

export interface ChannelSubscriptionsTable {
  id: Generated<number>;
  company_id: number;
  platform: ChatPlatform;
  workspace_id: string;
  channel_id: string;
  kind: 'incidents' | 'service' | 'monitor' | 'board';
  service_id: number | null;
  monitor_id: number | null;
  board_id: string | null;
  target_key: string;
  schedule: string | null;
  timezone: string | null;
  only_on_change: Generated<number>;
  edit_in_place: Generated<number>;
  last_digest: string | null;
  created_at: number;
}

export interface ChatMessagesTable {
  platform: ChatPlatform;
  channel_id: string;
  /** What the message shows, e.g. 'incident:42' or 'digest:<subscription id>'. */
  subject: string;
  message_id: string;
  created_at: number;
  updated_at: number;
}

/** A signed chat request already taken, until its signature expires (see adapters/chat/replay-guard.ts). */
export interface SeenChatRequestsTable {
  platform: ChatPlatform;
  /** SHA-256 (hex) of what the platform signed: timestamp and body. */
  digest: string;
  expires_at: number;
}

/** Who changed what (see domain/audit/audit-trail.ts). */
export interface AuditEventsTable {
  id: Generated<number>;
  at: number;
  company_id: number | null;
  /** `api_key:<key id>`, `slack:<team>/<user>`, `discord:<guild>/<user>`, `cli`, `job:<name>`, `page`. */
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  /** JSON: field → { from?, to? }. */
  changes: string;
}

export type AlertSource = 'alertmanager' | 'generic';

/** An alert group (groupKey, dedup_key) of a company and its incident. */
export interface AlertGroupsTable {
  company_id: number;
  source: AlertSource;
  dedup_key: string;
  incident_id: number;
  /** What fired last: the firing alerts' fingerprints (Alertmanager), the trigger's fields (generic); JSON. */
  firing: string;
  updated_at: number;
}

export interface JobLeasesTable {
  slot: string;
  holder: string;
  expires_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface Database {
  companies: CompaniesTable;
  api_keys: ApiKeysTable;
  services: ServicesTable;
  maintenance_windows: MaintenanceWindowsTable;
  maintenances: MaintenancesTable;
  maintenance_services: MaintenanceServicesTable;
  maintenance_updates: MaintenanceUpdatesTable;
  company_monitored_services: CompanyMonitoredServicesTable;
  incidents: IncidentsTable;
  incident_updates: IncidentUpdatesTable;
  custom_monitors: CustomMonitorsTable;
  monitor_incidents: MonitorIncidentsTable;
  monitor_regions: MonitorRegionsTable;
  agent_reports: AgentReportsTable;
  boards: BoardsTable;
  board_services: BoardServicesTable;
  status_pages: StatusPagesTable;
  status_page_services: StatusPageServicesTable;
  email_suppressions: EmailSuppressionsTable;
  subscribers: SubscribersTable;
  email_subscribers: EmailSubscribersTable;
  probe_hours: ProbeHoursTable;
  probe_region_hours: ProbeRegionHoursTable;
  outbox: OutboxTable;
  meta: MetaTable;
  job_leases: JobLeasesTable;
  chat_links: ChatLinksTable;
  chat_admins: ChatAdminsTable;
  vendor_feeds: VendorFeedsTable;
  user_reports: UserReportsTable;
  channel_subscriptions: ChannelSubscriptionsTable;
  chat_messages: ChatMessagesTable;
  seen_chat_requests: SeenChatRequestsTable;
  audit_events: AuditEventsTable;
  notify_destinations: NotifyDestinationsTable;
  notify_messages: NotifyMessagesTable;
  alert_groups: AlertGroupsTable;
  incident_leads: IncidentLeadsTable;
  incident_rooms: IncidentRoomsTable;
  incident_notes: IncidentNotesTable;
}

/** A list of rows as one JSON column reads (see jsonRows): PostgreSQL's driver parses JSON, SQLite's hands over the text. */
export type JsonRows<O> = O[] | string;

/** One notification to deliver, due at once: a row of `outbox` as it is queued. */
export interface OutboxRow {
  companyId: number;
  subscriberId: number | null;
  stream: string;
  event: string;
  payload: unknown;
  now: number;
}
