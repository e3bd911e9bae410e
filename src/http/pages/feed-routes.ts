import { pageHealthOf } from '../../domain/read/pages/page-status.js';
import { pageFeed } from '../../domain/read/pages/page-view.js';
import { atomFeed, badgeSvg, rssFeed } from './page-documents.js';
import type { PublicRoute } from './public-route.js';

/** The machine-readable side of a status page beside its Statuspage documents: Atom, RSS, a badge. */
export const feedRoutes: PublicRoute[] = [
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
        lastModified: feed.updatedAt,
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
        lastModified: feed.updatedAt,
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
