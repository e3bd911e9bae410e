import type { APIInteractionResponse } from 'discord.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { ephemeral } from './replies.js';

/**
 * The one mapping from a failure to what a Discord user sees: an ephemeral
 * reply. Anything but a DomainError is logged and answered vaguely.
 */
export function errorReply(error: unknown, logger: Logger, what: string): APIInteractionResponse {
  if (!(error instanceof DomainError)) {
    logger.error(`discord ${what} failed`, error);
    return ephemeral('statusbot failed to do that; the error has been logged. Please try again later.');
  }
  const code = error.code;
  switch (code) {
    case 'unauthorized':
      // The only way here from chat is `/statusbot link` with a key that proves nothing.
      return ephemeral('That API key is not valid; nothing was changed.');
    case 'not_found':
      return ephemeral(`${error.message}.`);
    case 'forbidden':
      return ephemeral(`Not allowed: ${error.message}`);
    case 'conflict':
      return ephemeral(`Not done: ${error.message}`);
    case 'invalid_input': {
      const issues = error.issues.length > 0 ? error.issues.map((i) => i.message) : [error.message];
      return ephemeral(['Please check your input; nothing was changed:', ...issues.map((m) => `• ${m}`)].join('\n'));
    }
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped domain error ${String(unhandled)}`);
    }
  }
}
