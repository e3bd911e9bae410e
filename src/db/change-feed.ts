/** How replicas on one database hear of each other's commits; the channel and name prefix for what else listens (delivery's takeover). */
export {
  CHANGES_CHANNEL,
  ChangeFeed,
  KEYS_CHANGED_PREFIX,
  LISTENER_NAME_PREFIX,
  SEEN_CHANNEL,
  UNCACHED_CHANGE_PREFIX,
} from './dialects/postgres/change-feed.js';
