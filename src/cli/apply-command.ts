import { loadConfig } from '../config/load-config.js';
import { plural } from '../domain/plural.js';
import { describeChanges, describeSuppressed } from '../domain/setup/apply-changes.js';
import { applySetup } from '../domain/setup/apply-setup.js';
import { regionReach, shortQuorumWarnings } from '../domain/companies/region-reach.js';
import { UsageError } from './cli-errors.js';
import type { Command } from './command.js';
import { withConfigErrors } from './config-access.js';
import { withContext } from './database-access.js';
import { terminalProgress } from './progress.js';
import { portOf } from './serve-command.js';

export const applyCommand: Command = {
  name: 'apply',
  synopsis: '--config FILE [--db FILE|URL]',
  summary: 'apply a config file to the database',
  details: [
    'Creates what the file declares and is missing, updates what differs, in one transaction; never deletes,',
    'but for demo: false, which removes the demo company and the demo services with all they hold.',
    'Prints what it added, changed and removed, by kind, or "no changes": applying the same file twice changes nothing.',
    "A subscriber address that unsubscribed through a mail's link is not signed up again: it is listed as suppressed.",
    'A running server sees the changes at once.',
    'Warns of a company whose regions quorum is more than its regions can meet (this server and its agent regions): its monitors could never go down.',
  ].join('\n'),
  options: ['config', 'db'],
  async run(input) {
    const file = input.configFile;
    if (!file) throw new UsageError('apply needs --config FILE (or STATUSBOT_CONFIG)');
    const loaded = loadConfig(file);
    const { setup, publicUrl } = loaded.config;
    // Pages without a url of their own are addressed as a server of this environment (PORT) serves them.
    const url = publicUrl ?? `http://localhost:${portOf(input.env.PORT)}`;
    const progress = terminalProgress({ stream: input.stderr, env: input.env });
    const started = performance.now();
    const items = `${plural(setup.companies.length, 'company', 'companies')}, ${plural(setup.services.length, 'catalog service')}`;
    progress.follow(() => `applying ${file} (${items}): ${Math.round((performance.now() - started) / 1000)} s`);
    try {
      const { report, reach } = await withContext(
        input.dbPath,
        async (ctx) => ({ report: await withConfigErrors(loaded, file, () => applySetup(ctx, setup)), reach: await regionReach(ctx) }),
        url,
      );
      progress.done();
      input.out(`applied ${file}: ${describeChanges(report.changes)}`);
      for (const line of describeSuppressed(report.suppressed, loaded.locate)) input.out(line);
      // Only the companies of this file: another company's quorum is another file's business.
      const declared = new Set(setup.companies.map((c) => c.name));
      for (const line of shortQuorumWarnings(
        reach.filter((r) => declared.has(r.company)),
        'held',
      ))
        input.err(`warning: ${line}`);
      return 0;
    } finally {
      progress.done();
    }
  },
};
