/** How hard one webhook URL or one mail address is driven: deliveries under way at once, and started per second (null: no limit). */
export interface DestinationLimits {
  concurrency: number;
  perSecond: number | null;
}

export const DEFAULT_DESTINATION_LIMITS: DestinationLimits = { concurrency: 8, perSecond: null };
