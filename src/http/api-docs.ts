import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The API reference: Swagger UI from the swagger-ui-dist package, served by statusbot itself (no CDN). */
export const API_DOCS_PATH = '/api/docs';

/** Everything from this server, no inline script or style: the page's setup is a file of its own (init.js). */
const HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  // Revalidated with the ETag: a new swagger-ui-dist is picked up at once.
  'Cache-Control': 'no-cache',
};

// Relative addresses, so that the page also works behind a proxy that adds a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>statusbot API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="stylesheet" href="docs/index.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<noscript>This reference needs JavaScript. The API description it shows is <a href="v2/openapi.json">/api/v2/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the description to an online validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: 'v2/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
};

/** The files of swagger-ui-dist that may be asked for, by name. */
const PACKAGE_FILES = [
  'swagger-ui.css',
  'swagger-ui.css.map',
  'index.css',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'favicon-32x32.png',
  'favicon-16x16.png',
];

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const asset = (body: Buffer, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/** The API reference's page and files, each a path of its own. */
export interface ApiDocs {
  /** Every path answered: the page, its files, and the page's address with a trailing slash (redirected). */
  readonly paths: readonly string[];
  /** Answers a GET or HEAD of one of `paths`. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/** The package's files are read once, when first asked for. */
export function createApiDocs(): ApiDocs {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>([
    [API_DOCS_PATH, asset(Buffer.from(PAGE), 'text/html; charset=utf-8')],
    [`${API_DOCS_PATH}/init.js`, asset(Buffer.from(INIT), TYPES['.js']!)],
  ]);
  const redirect = `${API_DOCS_PATH}/`;

  function find(path: string): Asset {
    const known = assets.get(path);
    if (known) return known;
    const name = path.slice(API_DOCS_PATH.length + 1);
    const loaded = asset(readFileSync(join(packageDir, name)), TYPES[name.slice(name.lastIndexOf('.'))]!);
    assets.set(path, loaded);
    return loaded;
  }

  return {
    paths: [...assets.keys(), redirect, ...PACKAGE_FILES.map((name) => `${API_DOCS_PATH}/${name}`)],
    serve(req, res, path) {
      if (path === redirect) {
        res.writeHead(308, { Location: '../docs' });
        res.end();
        return;
      }
      const found = find(path);
      if (req.headers['if-none-match'] === found.etag) {
        res.writeHead(304, { ...HEADERS, ETag: found.etag });
        res.end();
        return;
      }
      res.writeHead(200, { ...HEADERS, ETag: found.etag, 'Content-Type': found.type, 'Content-Length': found.body.length });
      res.end(found.body);
    },
  };
}
