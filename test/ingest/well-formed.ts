import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';

/** A snapshot the domain can apply: every date real, and each incident and maintenance once (it upserts them by id). */
export function wellFormed(snapshot: VendorSnapshot): boolean {
  const dates = [
    ...snapshot.incidents.flatMap((i) => [i.createdAt, i.updatedAt, i.resolvedAt, ...i.updates.map((u) => u.createdAt)]),
    ...snapshot.maintenances.flatMap((m) => [m.startsAt, m.endsAt]),
  ];
  const unique = (ids: readonly string[]) => new Set(ids).size === ids.length;
  return (
    dates.every((d) => d === null || !Number.isNaN(d.getTime())) &&
    unique(snapshot.incidents.map((i) => i.id)) &&
    unique(snapshot.maintenances.map((m) => m.id))
  );
}
