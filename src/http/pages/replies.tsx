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

/** The 404 of the public side: a page of the site, with a link to the status page the address was under (or the home). */
export function notFoundReply(home: { href: string; name: string } | null): PublicReply {
  return {
    status: 404,
    contentType: HTML,
    body: renderPage(
      <MessagePage title="Not found" {...(home ? { base: home.href === '/' ? '' : home.href, pageName: home.name } : {})}>
        <p>There is nothing at this address.</p>
        <p>
          <a href={home?.href ?? '/'}>{home ? `Go to ${home.name}` : 'Go to the home page'}</a>
        </p>
      </MessagePage>,
    ),
  };
}
