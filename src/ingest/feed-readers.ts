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

export const FEED_READERS: Record<FeedKind, FeedReader> = { statuspage, rss, atom, gcp, instatus, slack, statusio, betterstack, incidentio, salesforce };
