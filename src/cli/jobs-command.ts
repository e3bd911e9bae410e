import { emptyConfig, withEnvironment } from '../config/load-config.js';
import { JOB_NAMES } from '../config/job-names.js';
import { runJobOnce } from './job-runs.js';
import { UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { CommandInput } from './command.js';
import { configOf, withConfigErrors } from './config-access.js';
import { onDatabase } from './database-access.js';

/** `statusbot jobs run`, as commands.ts describes it. */
export async function runJobsRun(input: CommandInput): Promise<number> {
  const name = input.operands[0]!;
  if (!(JOB_NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown job "${name}"; the jobs are ${JOB_NAMES.join(', ')}`);
  const loaded = configOf(input.configFile, input.env);
  const logger = commandLogger(input);
  const summary = await onDatabase(input.dbPath, () =>
    withConfigErrors(loaded, input.configFile, () =>
      runJobOnce({ dbPath: input.dbPath, config: withEnvironment(loaded?.config ?? emptyConfig(), input.env), name, logger }),
    ),
  );
  input.out(`job ${name}: ${summary ?? 'done'}`);
  return 0;
}
