import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/infrastructure/logger.js';
import { isChatAdmin } from '../../src/domain/chat/chat-links.js';
import type { DomainContext } from '../../src/domain/context.js';
import { reporters } from '../../src/domain/vendors/user-reports.js';
import type { ChatActor, ChatRequest } from '../chat/chat-request.js';
import { SLACK_DIALECT } from './dialect.js';

export interface SlackDeps {
  ctx: DomainContext;
  logger: Logger;
}

/** Where a Slack payload came from. */
export interface SlackOrigin {
  teamId: string;
  channelId: string;
  userId: string;
  /** The payload's trigger_id: the audit trail's request id for what it changes. */
  triggerId?: string;
}

/**
 * Slack's side of the permission rule: workspace admins and owners (users.info)
 * hold every right, and so do the users the config lists under `slack.admins`.
 */
function slackActor(deps: SlackDeps, client: webApi.WebClient, userId: string): ChatActor {
  return {
    async has(_right, company) {
      if (await isChatAdmin(deps.ctx, company, 'slack', userId)) return true;
      try {
        const { user } = await client.users.info({ user: userId });
        return Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner);
      } catch (error) {
        // Without users:read (an app installed from an older manifest), nobody but the listed admins is let in.
        deps.logger.error(`slack: users.info for ${userId} failed; only users listed in slack.admins may change links and subscriptions`, error);
        return false;
      }
    },
  };
}

/** A chat request from a Slack payload; the client is the one Bolt hands the listener. */
export function slackRequest(deps: SlackDeps, origin: SlackOrigin, client: webApi.WebClient): ChatRequest {
  return {
    ctx: deps.ctx.actingAs({ actor: `slack:${origin.teamId}/${origin.userId}`, requestId: origin.triggerId ?? null }),
    logger: deps.logger,
    dialect: SLACK_DIALECT,
    workspaceId: origin.teamId,
    channel: { platform: 'slack', workspaceId: origin.teamId, channelId: origin.channelId },
    actor: slackActor(deps, client, origin.userId),
    reporter: reporters.slack(origin.teamId, origin.userId),
  };
}
