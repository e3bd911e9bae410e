import { loadConfig, withEnvironment } from '../config/load-config.js';
import { plural } from '../domain/plural.js';
import { describeChanges, describeSuppressed } from '../domain/setup/apply-changes.js';
import { applySetup } from '../domain/setup/apply-setup.js';
import { regionReach, shortQuorumWarnings } from '../domain/companies/region-reach.js';
import { UsageError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { withConfigErrors } from './config-access.js';
import { withContext } from './database-access.js';
import { terminalProgress } from './progress.js';
import { portOf } from './serve-command.js';

/** `statusbot apply`, as commands.ts describes it. */
export async function runApply(input: CommandInput): Promise<number> {
  const file = input.configFile;
  if (!file) throw new UsageError('apply needs --config FILE (or STATUSBOT_CONFIG)');
  const loaded = loadConfig(file, input.env);
  const { setup, publicUrl } = withEnvironment(loaded.config, input.env);
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
}
