import { atom } from './atom.js';
import { betterstack } from './betterstack.js';
import { gcp } from './gcp.js';
import { incidentio } from './incidentio.js';
import { instatus } from './instatus.js';
import { rss } from './rss.js';
import { salesforce } from './salesforce.js';
import { slack } from './slack.js';
import { statusio } from './statusio.js';
import { statuspage } from './statuspage.js';
import type { FeedKind, FeedReader } from './vendor-snapshot.js';

/** Every feed kind, one line each: the compiler holds it to the domain's FEED_KINDS, each entry under its own name. */
export const FEED_READERS = { statuspage, rss, atom, gcp, instatus, slack, statusio, betterstack, incidentio, salesforce } as const satisfies {
  readonly [K in FeedKind]: FeedReader<K>;
};
