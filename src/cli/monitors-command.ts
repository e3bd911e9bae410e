import { emptyConfig, loadConfig, withEnvironment } from '../config/load-config.js';
import type { Monitor } from '../domain/monitors/monitor.js';
import { listMonitors } from '../domain/monitors/monitor-service.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';
import { companyOf } from './incidents-command.js';
import { portOf } from './serve-command.js';

const monitorLine = (m: Monitor) => [m.id, m.probeType, m.status, m.name.replace(/\p{Cc}+/gu, ' '), m.url].join('\t');

/** `statusbot monitors list`, as commands.ts describes it. */
export async function runMonitorsList(input: CommandInput): Promise<number> {
  mustExist(input.dbPath);
  const file = input.configFile;
  const publicUrl =
    withEnvironment(file ? loadConfig(file, input.env).config : emptyConfig(), input.env).publicUrl ?? `http://localhost:${portOf(input.env.PORT)}`;
  return withContext(
    input.dbPath,
    async (ctx) => {
      const company = await companyOf(ctx, input, 'monitors list');
      const monitors = await listMonitors(ctx, company);
      for (const monitor of monitors) input.out(monitorLine(monitor));
      if (monitors.length === 0) input.out(`${company.name} has no custom monitors`);
      return 0;
    },
    publicUrl,
  );
}
