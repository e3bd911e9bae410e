import type { ChannelRef } from '../../src/domain/model/channel.js';
import type { Company } from '../../src/domain/model/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { ChatDialect, ChatRight } from './dialect.js';

/** Who asks, as far as rights go: the platform answers whether the member holds a right in the company. */
export interface ChatActor {
  has(right: ChatRight, company: Company): Promise<boolean>;
}

/** Where a verb was asked, by whom, and how the platform speaks. */
export interface ChatRequest {
  ctx: DomainContext;
  logger: Logger;
  dialect: ChatDialect;
  workspaceId: string;
  channel: ChannelRef;
  actor: ChatActor;
  /** Who asks, as a reporter of problems counts them (domain/vendors/user-reports.ts `reporters`). */
  reporter: string;
}
