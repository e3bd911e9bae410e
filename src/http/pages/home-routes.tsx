import { demoTour } from '../../domain/demo/demo-company.js';
import { listPages } from '../../domain/status-pages/page-directory.js';
import type { PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
import { renderPage } from './render/layout.js';
import { HomePage } from './render/home-page.js';
import type { DemoHints } from './render/home-page.js';

/** What the home says of this install beside what the database holds. */
export interface HomeFacts {
  /** The config's `demo`. */
  demo: boolean;
  /**
   * The demo company's key when this process made it, else null; settled once
   * the start has made the demo (a request that comes meanwhile waits).
   */
  demoKey: Promise<string | null>;
  chat: DemoHints['chat'];
  feeds: DemoHints['feeds'];
}

/**
 * `/` of the server's own address. A page with a host of its own is served at
 * that host's `/` instead: the public router resolves those before routes.
 */
export function homeRoutes(facts: HomeFacts): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/',
      cacheable: true,
      handle: async ({ ctx }) => {
        const [pages, tour, key] = await Promise.all([listPages(ctx), facts.demo ? demoTour(ctx) : null, facts.demoKey]);
        const demo = tour ? { ...tour, key, chat: facts.chat, feeds: facts.feeds } : null;
        return { status: 200, contentType: HTML, body: renderPage(<HomePage publicUrl={ctx.publicUrl} pages={pages} demo={demo} />) };
      },
    },
  ];
}
