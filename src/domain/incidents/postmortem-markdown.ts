import type { Postmortem } from './postmortem.js';

/*
 * The postmortem is one document on every surface (the API's answer, the file
 * a chat command posts), so it is written here once, as Markdown.
 */

/** A duration as people read it: `1h 5m`, `45s`, `2d 3h`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const units: [number, string][] = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3_600), 'h'],
    [Math.floor((seconds % 3_600) / 60), 'm'],
    [seconds % 60, 's'],
  ];
  const first = units.findIndex(([n]) => n > 0);
  if (first === -1) return '0s';
  return units
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ');
}

/** Text on one line of Markdown, its characters that would start markup taken literally. */
const inline = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/([\\`*[\]<>])/g, '\\$1');

/** Text inside a list item: continuation lines indented under it. */
const itemText = (text: string): string => text.replace(/([\\`*[\]<>])/g, '\\$1').replace(/\n/g, '\n  ');

/** The postmortem as Markdown; `now` measures an incident still open. */
export function postmortemMarkdown(p: Postmortem, now: Date): string {
  const { incident } = p;
  const end = incident.resolvedAt ?? now;
  const duration = durationText(end.getTime() - incident.createdAt.getTime());
  const lines = [
    `# Postmortem: ${inline(incident.title)}`,
    '',
    `- **Incident:** #${incident.id} (${incident.trackerUrl})`,
    `- **Service:** ${inline(incident.serviceName)}`,
    `- **Severity:** ${incident.status}`,
    `- **Lead:** ${p.lead === null ? 'none' : inline(p.lead)}`,
    `- **Started:** ${incident.createdAt.toISOString()}`,
    `- **Resolved:** ${incident.resolvedAt ? incident.resolvedAt.toISOString() : 'not yet'}`,
    `- **Duration:** ${incident.resolvedAt ? duration : `${duration} so far`}`,
    '',
    '## Timeline',
    '',
    ...(p.timeline.length === 0 ? ['Nothing was recorded.'] : p.timeline.map((e) => `- ${e.at.toISOString()} — ${itemText(e.text)}`)),
    '',
    '## Impact',
    '',
    '## Root cause',
    '',
    '## Action items',
    '',
  ];
  return lines.join('\n');
}
