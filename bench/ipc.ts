/** Messages between bench/run.ts and its server children. */
export type ParentMessage =
  | { type: 'rss' }
  /** CPU time the child has used so far (user and system). */
  | { type: 'cpu' }
  | { type: 'stop' }
  /** Bare server only: answer every request with this status and a JSON body of exactly `bytes` bytes. */
  | { type: 'body'; status: number; bytes: number };

export type ChildReply =
  | { type: 'ready'; port: number }
  | { type: 'rss'; maxRssKb: number; rssKb: number }
  | { type: 'cpu'; micros: number }
  | { type: 'body-set'; bytes: number };
