import { agentCommand } from './agent-command.js';
import { agentsListCommand } from './agents-command.js';
import { applyCommand } from './apply-command.js';
import { auditListCommand } from './audit-command.js';
import type { Command } from './command.js';
import { dbCopyCommand } from './db-copy-command.js';
import { dbBackupCommand, dbRestoreCommand } from './db-file-commands.js';
import { discordRegisterCommand } from './discord-command.js';
import { feedsCheckCommand, feedsCommand } from './feeds-command.js';
import { incidentsListCommand } from './incidents-command.js';
import { maintenancesListCommand } from './maintenances-command.js';
import { jobsRunCommand } from './jobs-command.js';
import { keyCreateCommand, keyListCommand, keyRevokeCommand } from './key-commands.js';
import { migrateCommand } from './migrate-command.js';
import { monitorsListCommand } from './monitors-command.js';
import { outboxListCommand, outboxRetryCommand } from './outbox-commands.js';
import { serveCommand } from './serve-command.js';

/** Every command, in the order the usage lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  applyCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  agentsListCommand,
  auditListCommand,
  incidentsListCommand,
  maintenancesListCommand,
  monitorsListCommand,
  outboxListCommand,
  outboxRetryCommand,
  feedsCommand,
  feedsCheckCommand,
  dbBackupCommand,
  dbRestoreCommand,
  dbCopyCommand,
  discordRegisterCommand,
  jobsRunCommand,
  agentCommand,
];
