import { listFeeds } from '../domain/vendors/vendor-feeds.js';
import type { Command } from './command.js';
import { mustExist, withContext } from './database-access.js';

export const feedsCommand: Command = {
  name: 'feeds',
  synopsis: '[--all] [--db FILE|URL]',
  summary: 'vendor feeds read: status, last success, last error, next read',
  details: 'One line per feed: service, kind, address, status, last successful read, next read (or why it fails).',
  options: ['all', 'db'],
  async run(input) {
    mustExist(input.dbPath);
    const all = input.flag('all');
    return withContext(input.dbPath, async (ctx) => {
      const feeds = (await listFeeds(ctx)).filter((f) => all || f.watched);
      if (feeds.length === 0) console.log(all ? 'no service has a feed' : 'no feed is read: no company watches a service with a feed (--all lists them all)');
      const time = (d: Date | null) => (d ? d.toISOString() : '-');
      for (const f of feeds) {
        const error = f.failures > 0 ? `  failing (${f.failures}): ${f.lastError ?? ''}` : '';
        const polled = f.watched ? `next ${time(f.nextPollAt)}` : 'not watched';
        console.log(`${f.urlname}\t${f.kind}\t${f.url}\t${f.indicator ?? '-'}\tlast ok ${time(f.lastCheckedAt)}\t${polled}${error}`);
      }
      return 0;
    });
  },
};
