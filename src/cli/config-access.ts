import { ConfigError, describeConfigIssues, loadConfig } from '../config/load-config.js';
import type { LoadedConfig } from '../config/load-config.js';
import { DomainError } from '../domain/errors.js';

export function configOf(file: string | undefined, env: NodeJS.ProcessEnv): LoadedConfig | null {
  return file ? loadConfig(file, env) : null;
}

/** Entries of the config that clash with the database are reported at their line in the file. */
export async function withConfigErrors<T>(loaded: LoadedConfig | null, file: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (loaded && file && e instanceof DomainError && e.code === 'invalid_input') {
      throw new ConfigError(describeConfigIssues(file, e.issues, loaded.locate));
    }
    throw e;
  }
}
