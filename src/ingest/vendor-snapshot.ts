import type { FeedKind, VendorSnapshot } from '../domain/vendors/vendor-snapshot.js';

export type { FeedKind, VendorComponent, VendorIncident, VendorMaintenance, VendorSnapshot, VendorUpdate } from '../domain/vendors/vendor-snapshot.js';
export { FEED_KINDS } from '../domain/vendors/vendor-snapshot.js';

/** A feed whose content statusbot cannot read: not the expected format, malformed, or missing what it must have. */
export class FeedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedFormatError';
  }
}

/**
 * One feed kind: which documents to fetch for a feed address, and how to read
 * them. `parse` gets the bodies in the order of `documents`, and the time of
 * the read (for feeds that only say "in progress"). It is pure, and throws
 * FeedFormatError for anything it cannot read.
 */
export interface FeedReader<K extends FeedKind = FeedKind> {
  readonly kind: K;
  documents(url: string): string[];
  parse(bodies: readonly string[], context: { url: string; now: Date }): VendorSnapshot;
}
