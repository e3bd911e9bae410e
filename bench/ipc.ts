/** Messages between bench/run.ts and its server children. */
export type ParentMessage =
  | { type: 'rss' }
  /** CPU time the child has used so far (user and system). */
  | { type: 'cpu' }
  | { type: 'stop' }
  /** statusbot only: logs, metrics and the audit trail on or off from now. */
  | { type: 'observing'; on: boolean }
  /** Bare server only: answer every request with this status and a JSON body of exactly `bytes` bytes. */
  | { type: 'body'; status: number; bytes: number }
  /** Bare server only: answer every request with exactly these bytes (base64) and headers, e.g. a page as statusbot compressed it. */
  | { type: 'raw'; status: number; body: string; headers: Record<string, string> };

export type ChildReply =
  | { type: 'ready'; port: number }
  | { type: 'rss'; maxRssKb: number; rssKb: number }
  | { type: 'cpu'; micros: number }
  | { type: 'observing'; on: boolean }
  | { type: 'body-set'; bytes: number };
