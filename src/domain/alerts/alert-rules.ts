import { DESCRIPTION_MAX, TITLE_MAX } from '../incidents/incident-input.js';
import type { Severity } from '../model/incident.js';
import type { AlertmanagerAlert, AlertmanagerInput } from './alert-input.js';
import { clipWithEllipsis as clip } from '../clip-text.js';

/** What a notification says of its group: its alerts fire (as `firing` identifies them), or all are resolved. */
export type AlertSignal = { kind: 'firing'; firing: string; title: string; status: Severity; description: string } | { kind: 'resolved'; description: string };

/** What a signal does to the group's incident. */
export type AlertMove = 'none' | 'open' | 'update' | 'resolve' | 'reopen';

/** Severities of the `severity` label that page: the incident is major. */
const PAGING = new Set(['critical', 'page']);

const sortedLabels = (labels: Readonly<Record<string, string>>): [string, string][] => Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** An alert's identity: its fingerprint, else its labels (which Alertmanager's fingerprint hashes). */
const identity = (alert: AlertmanagerAlert): string => alert.fingerprint || JSON.stringify(sortedLabels(alert.labels));

function alertLine(alert: AlertmanagerAlert): string {
  const name = alert.labels.alertname ?? 'alert';
  const labels = sortedLabels(alert.labels)
    .filter(([k]) => k !== 'alertname')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const text = alert.annotations.summary ?? alert.annotations.description ?? '';
  return `- ${name}${labels ? ` (${labels})` : ''}${text ? `: ${text}` : ''}`;
}

/** The firing alerts, one line each, within the length of a description. */
function firingText(firing: readonly AlertmanagerAlert[]): string {
  const head = `${firing.length} alert${firing.length === 1 ? '' : 's'} firing:`;
  const lines = [head];
  let length = head.length;
  for (const [i, alert] of firing.entries()) {
    const line = clip(alertLine(alert), 1_000);
    const more = `… and ${firing.length - i} more`;
    if (length + 1 + line.length + 1 + more.length > DESCRIPTION_MAX) {
      lines.push(more);
      break;
    }
    lines.push(line);
    length += 1 + line.length;
  }
  return lines.join('\n');
}

/** What an Alertmanager (or Grafana) notification says of its group. */
export function alertmanagerSignal(input: AlertmanagerInput): AlertSignal {
  const firing = input.alerts.filter((a) => a.status === 'firing');
  if (input.status === 'resolved' || firing.length === 0) {
    const n = input.alerts.length;
    return { kind: 'resolved', description: n === 1 ? 'The alert is resolved.' : `All ${n} alerts are resolved.` };
  }
  const first = firing[0]!;
  const title =
    input.commonAnnotations.summary?.trim() ||
    first.annotations.summary?.trim() ||
    input.commonLabels.alertname?.trim() ||
    first.labels.alertname?.trim() ||
    input.groupKey;
  const severities = [input.commonLabels.severity, ...firing.map((a) => a.labels.severity)];
  const major = severities.some((s) => s !== undefined && PAGING.has(s.trim().toLowerCase()));
  return {
    kind: 'firing',
    firing: JSON.stringify([...new Set(firing.map(identity))].sort()),
    title: clip(title, TITLE_MAX),
    status: major ? 'major' : 'minor',
    description: firingText(firing),
  };
}

/** What a trigger of the generic endpoint says: it fires as its fields say (the same fields again change nothing). */
export const triggerSignal = (t: { title: string; status: Severity; description: string }): AlertSignal => ({
  kind: 'firing',
  firing: JSON.stringify([t.title, t.status, t.description]),
  ...t,
});

/**
 * The move a signal makes of the group's incident (`current`, null when the
 * group has none). A group that fires again after it was resolved reopens its
 * incident, or (`afterResolved: 'open'`) opens a new one.
 */
export function moveFor(current: { resolved: boolean; firing: string } | null, signal: AlertSignal, afterResolved: 'reopen' | 'open'): AlertMove {
  if (signal.kind === 'resolved') return current && !current.resolved ? 'resolve' : 'none';
  if (!current) return 'open';
  if (current.resolved) return afterResolved;
  return current.firing === signal.firing ? 'none' : 'update';
}
