/** Slack allows 80 characters in a channel's name, Discord 100: the shorter fits both. */
export const ROOM_NAME_MAX = 80;

/**
 * `inc-{id}-{title words}`: lowercase letters and digits joined by `-`, the
 * only characters both platforms allow everywhere; a later attempt (after a
 * name was taken) ends in `-{attempt}`.
 */
export function roomName(incidentId: number, title: string, attempt = 1): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const suffix = attempt > 1 ? `-${attempt}` : '';
  let name = `inc-${incidentId}`;
  for (const word of words) {
    if (name.length + 1 + word.length + suffix.length > ROOM_NAME_MAX) break;
    name += `-${word}`;
  }
  return `${name}${suffix}`.slice(0, ROOM_NAME_MAX);
}
