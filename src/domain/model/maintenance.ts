import type { MaintenanceStatus } from '../../db/schema.js';

export type { MaintenanceStatus };

export const MAINTENANCE_STATUSES = ['scheduled', 'in_progress', 'completed', 'cancelled'] as const satisfies readonly MaintenanceStatus[];

/** The statuses after which nothing moves a maintenance any more. */
export const FINAL_STATUSES: readonly MaintenanceStatus[] = ['completed', 'cancelled'];

/** What subscribers are told of: each move of a maintenance, and a change of its announcement. */
export type MaintenanceEvent = 'scheduled' | 'updated' | 'started' | 'completed' | 'cancelled';

export interface MaintenanceUpdate {
  status: MaintenanceStatus;
  description: string;
  createdAt: Date;
}

export interface MaintenanceService {
  id: number;
  name: string;
  urlname: string;
}

/** A company's maintenance of some of its custom services, with its timeline. */
export interface Maintenance {
  id: number;
  companyId: number;
  title: string;
  description: string;
  status: MaintenanceStatus;
  startsAt: Date;
  endsAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** In the order of their ids. */
  services: MaintenanceService[];
  /** Oldest first. */
  updates: MaintenanceUpdate[];
  trackerUrl: string;
}

export const maintenanceTrackerUrl = (publicUrl: string, id: number): string => `${publicUrl}/maintenances/${id}`;
