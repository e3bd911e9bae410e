import { DomainError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/core/logger.js';

export const UNEXPECTED_FAILURE = 'Something went wrong on our side; it has been logged. Please try again.';

/**
 * The one mapping from a failure to the ephemeral text a Slack user reads.
 * Unexpected failures are logged here, and never shown in detail.
 */
export function slackErrorText(error: unknown, logger: Logger, doing: string): string {
  if (!(error instanceof DomainError)) {
    logger.error(`slack: ${doing} failed`, error);
    return UNEXPECTED_FAILURE;
  }
  const code = error.code;
  switch (code) {
    case 'unauthorized':
      // Never the key itself: the message is about the key, which the user already has.
      return 'That API key is not valid. Use a key of your statusbot company (from the config file or `statusbot key create`).';
    case 'not_found':
      return `${error.message}, or it is not one of your company's.`;
    case 'forbidden':
      return `Not allowed: ${error.message}.`;
    case 'conflict':
      return `${error.message}.`;
    case 'invalid_input': {
      const issues = error.issues.length > 0 ? error.issues.map((i) => i.message) : [error.message];
      return issues.length === 1 ? `Please check: ${issues[0]}.` : `Please check:\n${issues.map((m) => `• ${m}`).join('\n')}`;
    }
    default: {
      const unhandled: never = code;
      logger.error(`slack: unmapped domain error ${String(unhandled)}`);
      return UNEXPECTED_FAILURE;
    }
  }
}
