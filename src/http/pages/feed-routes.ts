import { pageHealthOf } from '../../domain/status-pages/page-status.js';
import { pageFeed, pageView } from '../../domain/status-pages/page-view.js';
import { atomFeed, badgeSvg, incidentsDocument, rssFeed, summaryDocument } from './page-documents.js';
import type { PublicRoute } from './public-route.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Aggregators read these across origins (as they do Statuspage's). */
const OPEN = { 'Access-Control-Allow-Origin': '*' };

/** The machine-readable side of a status page: Statuspage documents, Atom, RSS, a badge. */
export const feedRoutes: PublicRoute[] = [
  {
    method: 'GET',
    path: '/status/:slug/api/v2/summary.json',
    cacheable: true,
    handle: async ({ ctx, params }) => ({
      status: 200,
      contentType: JSON_TYPE,
      headers: OPEN,
      body: JSON.stringify(summaryDocument(await pageView(ctx, params.slug!))),
    }),
  },
  {
    method: 'GET',
    path: '/status/:slug/api/v2/incidents.json',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const feed = await pageFeed(ctx, params.slug!);
      return { status: 200, contentType: JSON_TYPE, headers: OPEN, body: JSON.stringify(incidentsDocument(feed.page, feed.updatedAt, feed.incidents)) };
    },
  },
  {
    method: 'GET',
    path: '/status/:slug/feed.atom',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const feed = await pageFeed(ctx, params.slug!);
      return {
        status: 200,
        contentType: 'application/atom+xml; charset=utf-8',
        body: atomFeed(feed.page, feed.updatedAt, feed.entries, `${feed.page.url}/feed.atom`),
      };
    },
  },
  {
    method: 'GET',
    path: '/status/:slug/feed.rss',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const feed = await pageFeed(ctx, params.slug!);
      return {
        status: 200,
        contentType: 'application/rss+xml; charset=utf-8',
        body: rssFeed(feed.page, feed.updatedAt, feed.entries, `${feed.page.url}/feed.rss`),
      };
    },
  },
  {
    method: 'GET',
    path: '/status/:slug/badge.svg',
    cacheable: true,
    handle: async ({ ctx, params }) => {
      const health = await pageHealthOf(ctx, params.slug!);
      return { status: 200, contentType: 'image/svg+xml; charset=utf-8', body: badgeSvg(health.status) };
    },
  },
];
