import { emptyConfig } from '../config/load-config.js';
import { DomainError } from '../domain/errors.js';
import { listFeeds } from '../domain/vendors/vendor-feeds.js';
import type { FeedCheck } from '../jobs/feed-poller.js';
import { checkFeeds } from './job-runs.js';
import { CommandError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { CommandInput } from './command.js';
import { configOf, withConfigErrors } from './config-access.js';
import { mustExist, onDatabase, withContext } from './database-access.js';
import { plural } from '../domain/plural.js';

/** `statusbot feeds`, as commands.ts describes it. */
export async function runFeeds(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  const all = input.flag('all');
  return withContext(input.dbPath, async (ctx) => {
    const feeds = (await listFeeds(ctx)).filter((f) => all || f.watched);
    if (feeds.length === 0) input.out(all ? 'no service has a feed' : 'no feed is read: no company watches a service with a feed (--all lists them all)');
    const time = (d: Date | null) => (d ? d.toISOString() : '-');
    for (const f of feeds) {
      const status = f.knowledge.known ? (f.indicator ?? '-') : `no data (${f.knowledge.reason})`;
      const error = f.failures > 0 ? `  failing (${f.failures}): ${f.lastError ?? ''}` : '';
      const polled = f.watched ? `next ${time(f.nextPollAt)}` : 'not watched';
      const skipped = f.skipped.length > 0 ? `  left out (${f.skipped.length}): ${f.skipped.join('; ')}` : '';
      input.out(`${f.urlname}\t${f.kind}\t${f.url}\t${status}\tlast ok ${time(f.lastCheckedAt)}\t${polled}${error}${skipped}`);
    }
    return 0;
  });
}

/** `statusbot feeds check`, as commands.ts describes it. */
export async function runFeedsCheck(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  const loaded = configOf(input.configFile, input.env);
  const logger = commandLogger(input);
  const results = await onDatabase(input.dbPath, () =>
    withConfigErrors(loaded, input.configFile, async () => {
      try {
        return await checkFeeds({ dbPath: input.dbPath, config: loaded?.config ?? emptyConfig(), urlnames: input.operands, logger });
      } catch (error) {
        throw error instanceof DomainError && error.code === 'not_found' ? new CommandError(`${error.message}; statusbot feeds --all lists them`) : error;
      }
    }),
  );
  if (results.length === 0) input.out('no feed is read: no company watches a service with a feed; name the ones to check');
  for (const result of results) input.out(`${result.urlname}\t${result.kind}\t${result.url}\t${outcome(result)}`);
  return results.every((r) => r.ok) ? 0 : 1;
}

function outcome(result: FeedCheck): string {
  if (!result.ok) return `failed: ${result.error}`;
  const { indicator, incidents, components, maintenances, skipped } = result.snapshot;
  const open = incidents.filter((i) => !i.resolved).length;
  const parts = [
    `status ${indicator ?? (open > 0 ? 'from incidents' : 'not stated')}`,
    `${open} open of ${plural(incidents.length, 'incident')}`,
    plural(components.length, 'component'),
    plural(maintenances.length, 'maintenance'),
  ];
  if (skipped.length > 0) parts.push(`${skipped.length} left out: ${skipped.slice(0, 3).join('; ')}`);
  return `ok: ${parts.join(', ')}`;
}
