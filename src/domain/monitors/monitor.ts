export type ProbeType = 'ping' | 'keyword';
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
  createdAt: Date;
  updatedAt: Date;
  ongoingIncidents: MonitorIncident[];
}
