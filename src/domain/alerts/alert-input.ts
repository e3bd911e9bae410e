import { z } from 'zod';
import { DESCRIPTION_MAX, TITLE_MAX } from '../incidents/incident-input.js';
import { SEVERITIES } from '../model/incident.js';

/** Labels and annotations: names to texts. */
const texts = z.record(z.string(), z.string());
const alertStatus = z.enum(['firing', 'resolved']);

/** One alert of a notification; the fields statusbot reads (others, such as Grafana's `values`, are let through). */
const alert = z.looseObject({
  status: alertStatus,
  labels: texts,
  annotations: texts.default({}),
  startsAt: z.string().optional(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().max(200).optional().describe('Identifies the alert; without it, its labels do'),
});
export type AlertmanagerAlert = z.output<typeof alert>;

/**
 * A notification of Alertmanager's webhook receiver (version 4), or of a
 * Grafana webhook contact point (Alertmanager's shape with fields of its own).
 */
export const alertmanagerInput = z
  .looseObject({
    version: z.string().optional(),
    groupKey: z.string().trim().min(1).max(2_000).describe('The alert group: one incident per group'),
    truncatedAlerts: z.int().min(0).optional(),
    status: alertStatus.describe('`resolved` once every alert of the group is'),
    receiver: z.string().optional(),
    groupLabels: texts.default({}),
    commonLabels: texts.default({}),
    commonAnnotations: texts.default({}),
    externalURL: z.string().optional(),
    alerts: z.array(alert).max(1_000),
  })
  .meta({ description: "Alertmanager's webhook payload (version 4); Grafana's webhook payload is accepted as it is" });
export type AlertmanagerInput = z.output<typeof alertmanagerInput>;

const trigger = z.strictObject({
  dedup_key: z.string().trim().min(1).max(255).describe('Names the alert: the same key while its incident is open updates it'),
  action: z.literal('trigger'),
  service_id: z.int().min(1).describe('A custom service of yours'),
  title: z.string().trim().min(1).max(TITLE_MAX),
  status: z.enum(SEVERITIES).default('minor'),
  description: z.string().max(DESCRIPTION_MAX).default(''),
});

const resolve = z.strictObject({
  dedup_key: z.string().trim().min(1).max(255).describe('The key of the alert to resolve'),
  action: z.literal('resolve'),
  service_id: z.int().min(1).optional().describe('Ignored: the alert is found by its key'),
  title: z.string().max(TITLE_MAX).optional().describe('Ignored'),
  status: z.enum(SEVERITIES).optional().describe('Ignored'),
  description: z.string().max(DESCRIPTION_MAX).optional().describe('The text of the closing update'),
});

/** An alert of any monitoring tool, as PagerDuty's Events API has them: `trigger` opens or updates, `resolve` resolves. */
export const genericAlertInput = z.discriminatedUnion('action', [trigger, resolve], { error: 'must be one of trigger, resolve' });
export type GenericAlertInput = z.output<typeof genericAlertInput>;
