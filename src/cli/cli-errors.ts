/** A command line that cannot run: one line naming the mistake, then the usage that shows the way (exit 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage printed below the message: the command's, else the general one. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A command that cannot do what it was asked: one line that names the cause and the way out (exit 1). */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}
