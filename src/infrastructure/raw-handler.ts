import type { IncomingMessage, ServerResponse } from 'node:http';

/** A handler for a path outside the API (chat webhooks); it owns the whole exchange. */
export type RawHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>;
