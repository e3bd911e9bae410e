import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { FAVICON_PATH } from './favicon.js';
import { PAGE_SCRIPT_PATH } from './page-script.js';
import { STYLESHEET_PATH } from './stylesheet.js';

export interface LayoutProps {
  /** The document's title (the page's name, or what the page is about). */
  title: string;
  /** Where the page's own links start ('' on the page's own host); absent outside a status page. */
  base?: string;
  /** The status page's name, shown as the header's link home. */
  pageName?: string;
  /** Alternate links (feeds) in the head. */
  feeds?: { href: string; type: string; title: string }[];
  children: ComponentChildren;
}

/**
 * Every public page's frame: one stylesheet and one script served by
 * statusbot, nothing from another host. The skip link is the first thing Tab
 * reaches: past the header, to the page's own content.
 */
export function Layout(props: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{props.title}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        <link rel="icon" href={FAVICON_PATH} sizes="16x16" />
        <script src={PAGE_SCRIPT_PATH} defer />
        {props.feeds?.map((f) => (
          <link rel="alternate" type={f.type} href={f.href} title={f.title} />
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          {props.pageName !== undefined && props.base !== undefined ? (
            <a class="home" href={props.base === '' ? '/' : props.base}>
              {props.pageName}
            </a>
          ) : (
            <span class="home">{props.title}</span>
          )}
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        <footer class="site">
          <p>Powered by statusbot</p>
        </footer>
      </body>
    </html>
  );
}

/** An HTML document: the doctype, then the tree rendered with every text and attribute escaped. */
export const renderPage = (tree: preact.VNode): string => `<!doctype html>${renderToString(tree)}`;

/** A short page that says one thing (after a form, a confirmation link, an unsubscribe). */
export function MessagePage(props: { title: string; base?: string; pageName?: string; children: ComponentChildren }) {
  return (
    <Layout
      title={props.title}
      {...(props.base !== undefined ? { base: props.base } : {})}
      {...(props.pageName !== undefined ? { pageName: props.pageName } : {})}
    >
      <section class="message">
        <h1>{props.title}</h1>
        {props.children}
      </section>
    </Layout>
  );
}
