import { loadConfig } from '../config/load-config.js';
import type { Monitor } from '../domain/monitors/monitor.js';
import { listMonitors } from '../domain/monitors/monitor-service.js';
import type { Command } from './command.js';
import { mustExist, withContext } from './database-access.js';
import { companyOf } from './incidents-command.js';
import { portOf } from './serve-command.js';

const monitorLine = (m: Monitor) => [m.id, m.probeType, m.status, m.name.replace(/\p{Cc}+/gu, ' '), m.url].join('\t');

export const monitorsListCommand: Command = {
  name: 'monitors list',
  synopsis: '[--company NAME] [--config FILE] [--db FILE|URL]',
  summary: "a company's custom monitors, with heartbeats' push addresses",
  details: [
    'One line per monitor: id, probe type, status (ok or down), name, and what is probed; for a heartbeat, its push address',
    '(a secret: GET or POST to it from the job). The addresses start with the public_url of --config, if given.',
    'The monitors of the only company there is, unless --company names one.',
  ].join('\n'),
  options: ['company', 'config', 'db'],
  async run(input) {
    mustExist(input.dbPath);
    const file = input.configFile;
    const publicUrl = (file ? loadConfig(file).config.publicUrl : null) ?? `http://localhost:${portOf(input.env.PORT)}`;
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
  },
};
