import { emptyConfig, withRegionFromEnv } from '../config/load-config.js';
import { JOB_NAMES } from '../jobs/jobs.js';
import { runJobOnce } from '../main.js';
import { UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { Command } from './command.js';
import { configOf, withConfigErrors } from './config-access.js';
import { onDatabase } from './database-access.js';

export const jobsRunCommand: Command = {
  name: 'jobs run',
  synopsis: 'NAME [--config FILE] [--db FILE|URL]',
  summary: `run one job once: ${JOB_NAMES.join(', ')}`,
  details: 'Runs it as a slot of serve would, and says what it did.',
  options: ['config', 'db'],
  operands: { min: 1, max: 1 },
  async run(input) {
    const name = input.operands[0]!;
    if (!JOB_NAMES.includes(name)) throw new UsageError(`unknown job "${name}"; the jobs are ${JOB_NAMES.join(', ')}`);
    const loaded = configOf(input.configFile);
    const logger = commandLogger(input);
    const summary = await onDatabase(input.dbPath, () =>
      withConfigErrors(loaded, input.configFile, () =>
        runJobOnce({ dbPath: input.dbPath, config: withRegionFromEnv(loaded?.config ?? emptyConfig(), input.env), name, logger }),
      ),
    );
    input.out(`job ${name}: ${summary ?? 'done'}`);
    return 0;
  },
};
