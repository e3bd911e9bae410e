/** A config file that cannot be used; the message names the file, line and key of each problem. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
