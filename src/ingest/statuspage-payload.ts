import { z } from 'zod';
import { feedDate } from './feed-text.js';

// What statusbot reads of Statuspage's `/api/v2` documents. Other fields are
// ignored; fields that compatible providers (incident.io) or older pages omit
// or send as null are optional, so that only what a snapshot needs is required.

const listOf = <T extends z.ZodType>(item: T) => z.array(item).nullish().transform((list) => list ?? []);

const affectedComponent = z.object({ name: z.string() });

const incidentUpdate = z.object({
  status: z.string().nullish(),
  body: z.string().nullish(),
  created_at: feedDate.nullish(),
  display_at: feedDate.nullish(),
  affected_components: listOf(affectedComponent),
});

export const statuspageIncident = z.object({
  id: z.string().min(1),
  name: z.string(),
  status: z.string().nullish(),
  impact: z.string().nullish(),
  shortlink: z.string().nullish(),
  created_at: feedDate.nullish(),
  started_at: feedDate.nullish(),
  updated_at: feedDate.nullish(),
  resolved_at: feedDate.nullish(),
  components: listOf(affectedComponent),
  incident_updates: listOf(incidentUpdate),
});

const scheduledMaintenance = statuspageIncident.extend({
  scheduled_for: feedDate.nullish(),
  scheduled_until: feedDate.nullish(),
});

const page = z.object({ url: z.string().nullish() }).nullish();

export const statuspageSummary = z.object({
  page,
  status: z.object({ indicator: z.enum(['none', 'minor', 'major', 'critical', 'maintenance']) }),
  components: listOf(z.object({ name: z.string(), status: z.string(), group: z.boolean().nullish() })),
  incidents: listOf(statuspageIncident),
  scheduled_maintenances: listOf(scheduledMaintenance),
});

export const statuspageIncidents = z.object({
  page,
  incidents: z.array(statuspageIncident),
});

export type StatuspageIncident = z.output<typeof statuspageIncident>;
export type StatuspageSummary = z.output<typeof statuspageSummary>;
export type StatuspageIncidents = z.output<typeof statuspageIncidents>;
