import { z } from 'zod';

/** A member as each platform names one: Slack's user ids (U…, W…), Discord's snowflakes. */
export const memberId = {
  slack: z.string().regex(/^[UW][A-Z0-9]{2,20}$/, { error: 'must be a Slack member, such as @alice' }),
  discord: z.string().regex(/^\d{15,21}$/, { error: 'must be a Discord member, such as @alice' }),
} as const;

export const leadInput = (platform: keyof typeof memberId) => z.strictObject({ lead: memberId[platform] });

export const noteInput = z.strictObject({ text: z.string().trim().min(1).max(4000) });
