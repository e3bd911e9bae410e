import type { Plan, NotifyEvent } from '../model/company.js';
import type { DnsRecord, ProbeType } from '../monitors/monitor.js';
import type { NotifyDestinationSpec } from '../notifications/notify-destination.js';
import type { FeedKind } from '../vendors/vendor-snapshot.js';

/**
 * Everything the API cannot create, declared: the shape that config files are
 * validated into and that `applySetup` makes true in the database.
 */
export interface Setup {
  services: CatalogServiceSpec[];
  companies: CompanySpec[];
  /** The demo services (and the demo company a first start makes); false: none, and a database's demo is removed. */
  demo: boolean;
}

export interface CatalogServiceSpec {
  /** Its fixed id, for a service of the built-in catalog; without one it takes the next free id from 900,000. */
  id?: number | undefined;
  urlname: string;
  name: string;
  status_page_url: string | null;
  /** Where its status is read; undefined: the built-in catalog's feed of the same urlname, if any; null: none. */
  feed?: { kind: FeedKind; url: string } | null | undefined;
  poll: 'watched' | 'always';
  maintenance: { starts_at: Date; ends_at: Date }[];
  /** From the built-in catalog, not the config: left out, not refused, where a custom service holds its urlname. */
  builtIn?: boolean;
}

export interface CompanySpec {
  name: string;
  plan: Plan;
  notify_on: NotifyEvent[];
  api_keys: string[];
  /** Where its monitors are probed from; absent: a monitor is down when one region sees it down. */
  regions?: { quorum: number } | undefined;
  monitored_services: string[];
  custom_services: { id: number; name: string; urlname: string; status_page_url: string | null }[];
  custom_monitors: {
    id: number;
    name: string;
    url: string;
    probe_type: ProbeType;
    keyword: string | null;
    interval_seconds: number;
    service: string | null;
    /** dns */
    record?: DnsRecord | null;
    expect?: string[] | null;
    dns_server?: string | null;
    /** tls */
    days_before_expiry?: number | null;
    /** heartbeat (whose `url` is empty: it has none) */
    grace_seconds?: number | null;
  }[];
  boards: { id: string; name: string; urlname: string; services: { urlname: string; tags: string[] }[] }[];
  status_pages: StatusPageSpec[];
  slack?: { team_id?: string | undefined; admins: string[] } | undefined;
  discord?: { guild_id: string } | undefined;
  channels: {
    slack?: string | undefined;
    discord?: string | undefined;
    incidents: boolean;
    services: string[];
    monitors: number[];
    boards: { board: string; schedule: string; timezone: string; only_on_change: boolean; edit_in_place: boolean }[];
  }[];
  /** Paging and chat destinations told of the company's incidents (absent: none). */
  notify?: NotifyDestinationSpec[] | undefined;
  /** How alerts find their service; absent: the label `service`, no default service. */
  alerts?: { service_label: string; default_service_id?: number | undefined } | undefined;
  /** Absent: no incident channels. */
  chat?: { incident_channels: boolean } | undefined;
}

export interface StatusPageSpec {
  name: string;
  /** Default: the name in kebab-case. */
  slug?: string | undefined;
  /** Default: {public_url}/status/{slug}. */
  url?: string | undefined;
  services: string[];
  third_party: string[];
  monitors: number[];
  subscribers: ({ webhook: string; secret: string } | { email: string })[];
  /** Headings over some of `services` (urlnames), each service in one group at most. */
  groups: { name: string; services: string[] }[];
}
