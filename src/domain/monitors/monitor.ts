export const PROBE_TYPES = ['ping', 'keyword', 'tcp', 'dns', 'tls', 'heartbeat'] as const;
export type ProbeType = (typeof PROBE_TYPES)[number];
/** The record types a dns monitor may ask for. */
export const DNS_RECORDS = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'] as const;
export type DnsRecord = (typeof DNS_RECORDS)[number];
export type MonitorStatus = 'ok' | 'down';

export interface MonitorIncident {
  id: number;
  monitorId: number;
  /** Names the region(s) and the HTTP status or network error of the failure. */
  description: string;
  createdAt: Date;
  resolvedAt: Date | null;
  updatedAt: Date;
  resolved: boolean;
  monitorUrl: string;
}

export interface Monitor {
  id: number;
  name: string;
  status: MonitorStatus;
  url: string;
  probeType: ProbeType;
  /** heartbeat: where its job reports in (a secret of the company's). */
  pushUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
  ongoingIncidents: MonitorIncident[];
}

/** A tls monitor without `days_before_expiry` warns this long before its certificate expires. */
export const DEFAULT_DAYS_BEFORE_EXPIRY = 14;
