import type { PublicReply } from './public-route.js';
import { HTML } from './public-route.js';
import { MessagePage, renderPage } from './render/layout.js';

/** A public error page: the same words as the API's error shape, as HTML. */
export function errorReply(status: number, title: string, detail: string, headers: Record<string, string> = {}): PublicReply {
  return {
    status,
    contentType: HTML,
    headers,
    body: renderPage(
      <MessagePage title={title}>
        <p>{detail}</p>
      </MessagePage>,
    ),
  };
}
