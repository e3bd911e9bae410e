import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_TITLES, incidentDocument } from '../../src/http/api-schemas.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { routes } from '../../src/http/routes.js';
import type { Route } from '../../src/http/routes.js';
import { apiDocumentCheck } from '../helpers/api-document.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
let doc: any;
beforeAll(async () => {
  s = await startTestServer();
  const res = await fetch(`${s.url}/api/v2/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => {
  await s.stop();
});

const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');
const refOf = (response: any) => response.content['application/json'].schema.$ref as string;
const schemaAt = (ref: string) => doc.components.schemas[ref.slice('#/components/schemas/'.length)];

// @ts-expect-error a route without documentation does not compile
const undocumented: Route = { method: 'GET', path: '/nothing', handle: async () => ({ status: 204 }) };

describe('GET /api/v2/openapi.json', () => {
  it('answers without an API key, with a bad one too, and is the document the routes build', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const res = await fetch(`${s.url}/api/v2/openapi.json`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(buildOpenApiDocument(routes));
    }
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    // The validator does refuse a broken one.
    const broken = structuredClone(doc);
    broken.paths['/incidents'].post.responses['201'].content = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has schemas that a strict JSON Schema 2020-12 validator compiles', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    formats.default(ajv);
    ajv.addVocabulary(['components']);
    ajv.addSchema({ $id: 'https://statusbot.invalid/c', components: { schemas: doc.components.schemas } });
    for (const id of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `https://statusbot.invalid/c#/components/schemas/${id}` }), id).not.toThrow();
    }
  });

  it('answers other methods with 405 and Allow: GET', async () => {
    const res = await s.api('POST', '/api/v2/openapi.json', { key: null });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('every route of routes.ts', () => {
  const operationsOf = (d: any) => Object.entries(d.paths).flatMap(([path, item]: [string, any]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));

  it('is documented, and nothing else is', () => {
    expect(undocumented.doc).toBeUndefined();
    for (const route of routes) expect(route.doc, `${route.method} ${route.path}`).toBeDefined();
    // Beside the route table, the server's own: this document, and the heartbeats' push address.
    const own = ['GET /openapi.json', 'GET /heartbeats/{token}', 'POST /heartbeats/{token}'];
    expect(operationsOf(doc).sort()).toEqual([...routes.map((r) => `${r.method} ${openApiPath(r.path)}`), ...own].sort());
    const ids = operationsOf(doc).map((o) => {
      const [method, path] = o.split(' ');
      return doc.paths[path!][method!.toLowerCase()].operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  for (const route of routes) {
    const takesBody = route.method === 'POST' || route.method === 'PATCH';
    const hasParams = route.path.includes(':');
    it(`${route.method} ${route.path}: its success and every error it can answer, each with its schema`, () => {
      const op = doc.paths[openApiPath(route.path)][route.method.toLowerCase()];
      // The document's (the API key), but for the probe agents' routes, which admit their token only.
      if (route.caller === 'agent') expect(op.security).toEqual([{ agentToken: [] }]);
      else expect(op.security).toBeUndefined();
      const statuses = Object.keys(op.responses).map(Number);
      expect(statuses.filter((st) => st < 300)).toEqual([route.doc.success.status]);
      const expected = [401, 429, 503];
      if (takesBody || hasParams) expected.push(400);
      if (hasParams) expected.push(404);
      if (takesBody) expected.push(413, 422);
      if (route.doc.query) expected.push(422);
      for (const status of expected) expect(statuses, `${status}`).toContain(status);
      for (const status of statuses.filter((st) => st >= 400)) {
        // Only what renderError can answer, and with its own status and title.
        expect(Object.keys(ERROR_TITLES)).toContain(String(status));
        const errors = schemaAt(refOf(op.responses[status])).properties.errors.items.properties;
        expect(errors.status.const).toBe(status);
        expect(errors.title.const).toBe(ERROR_TITLES[status as keyof typeof ERROR_TITLES]);
      }
      expect(statuses).not.toContain(409);
      if (route.doc.body) expect(op.requestBody.content['application/json'].schema.type).toBe('object');
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(params).toEqual([...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]));
    });
  }

  it('the request bodies are the zod schemas that validate them, as their input', () => {
    const create = doc.paths['/incidents'].post.requestBody;
    expect(create.required).toBe(true);
    expect(create.content['application/json'].schema).toMatchObject({
      additionalProperties: false,
      required: ['service_id', 'title'],
      properties: { status: { enum: ['minor', 'major'], default: 'minor' }, resolution_stage: { default: 'investigating' } },
    });
    const update = doc.paths['/incidents/{id}'].patch.requestBody.content['application/json'].schema;
    expect(update.dependentRequired).toEqual({ description: ['resolution_stage'], resolution_stage: ['description'] });
    expect(doc.paths['/services/{service_name}/incidents'].get.parameters[1]).toMatchObject({
      name: 'include_user_reports',
      in: 'query',
      required: false,
      schema: { enum: ['true', 'false'] },
    });
  });

  it("describes the probe agents' operations with their token, and the heartbeat without any credential", () => {
    expect(doc.components.securitySchemes.agentToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const assignments = doc.paths['/agent/assignments'].get;
    expect(assignments.tags).toEqual(['Probe agents']);
    expect(schemaAt(refOf(assignments.responses['200'])).properties.data.$ref).toBe('#/components/schemas/AgentAssignments');
    const results = doc.paths['/agent/results'].post;
    expect(results.security).toEqual([{ agentToken: [] }]);
    expect(results.requestBody.content['application/json'].schema).toMatchObject({
      additionalProperties: false,
      properties: { results: { type: 'array', maxItems: 1000 }, dropped: { default: 0 } },
    });
    expect(Object.keys(results.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '413', '422', '429', '503']));
    for (const method of ['get', 'post']) {
      const op = doc.paths['/heartbeats/{token}'][method];
      expect(op.security).toEqual([]);
      expect(op.tags).toEqual(['Heartbeats']);
      expect(op.parameters.map((p: any) => `${p.in} ${p.name}`)).toEqual(['path token', 'query status', 'query msg']);
      expect(Object.keys(op.responses).sort()).toEqual(['204', '400', '404', '413', '429', '503']);
      expect(op.responses['401']).toBeUndefined();
    }
  });

  it('405 and the 404 of an unknown path are described once, for every path', () => {
    expect(doc.components.responses.MethodNotAllowed.headers.Allow.required).toBe(true);
    expect(schemaAt(refOf(doc.components.responses.UnknownPath)).properties.errors.items.properties.status.const).toBe(404);
  });

  it('a documentation that does not fit its route does not build', () => {
    const [getIncident] = routes.filter((r) => r.method === 'GET' && r.path === '/incidents/:id');
    const variant = (doc: Partial<Route['doc']>): Route => ({ ...getIncident!, doc: { ...getIncident!.doc, ...doc } });
    expect(() => buildOpenApiDocument([variant({ params: {} })])).toThrow(/doc.params/);
    expect(() => buildOpenApiDocument([variant({ errors: {} })])).toThrow(/404/);
    const unnamed = z.strictObject({ data: z.string() });
    expect(() => buildOpenApiDocument([variant({ success: { status: 200, description: 'x', schema: unnamed } })])).toThrow(/api-schemas/);
    expect(() => buildOpenApiDocument([getIncident!, getIncident!])).toThrow(/twice/);
  });
});

describe('the check of answers against the document (test/helpers/api-document.ts)', () => {
  const check = apiDocumentCheck();
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
    body,
    text: JSON.stringify(body),
  });

  it('passes an answer as documented, and names what differs in one that is not', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Checked' } });
    const answer = { method: 'POST', path: '/api/v2/incidents', ...created };
    expect(check.problems(answer)).toEqual([]);
    expect(incidentDocument.safeParse(created.body).success).toBe(true);

    const extra = structuredClone(created.body);
    extra.data.attributes.extra = 1;
    expect(check.problems({ ...answer, body: extra }).join()).toMatch(/additional properties/);
    const noLocation = new Headers(created.headers);
    noLocation.delete('location');
    expect(check.problems({ ...answer, headers: noLocation }).join()).toMatch(/Location header is missing/);
    expect(check.problems({ ...answer, status: 200 }).join()).toMatch(/not among the documented answers/);
    const wrongTitle = { errors: [{ status: 404, title: 'Not found', detail: 'x' }] };
    expect(check.problems({ method: 'GET', path: '/api/v2/incidents/1', ...json(404, wrongTitle) }).join()).toMatch(/constant/);
    expect(check.problems({ method: 'GET', path: '/api/v2/nowhere', ...json(200, { data: [] }) }).join()).toMatch(/without this operation/);
    expect(check.document).toEqual(doc);
  });
});

describe('GET /api/docs', () => {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

  it('is an HTML page with a policy that lets it load only from this server, and no inline script', async () => {
    const res = await fetch(`${s.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\bon[a-z]+=/);
    expect(html).not.toMatch(/(?:src|href)="(?:[a-z]+:|\/\/)/);
  });

  it('serves every file the page loads, with status 200 and its type, from this server', async () => {
    const html = await (await fetch(`${s.url}/api/docs`)).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${s.url}/api/docs`));
    expect(assets.map((u) => u.pathname)).toEqual(
      expect.arrayContaining(['/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/init.js', '/api/v2/openapi.json']),
    );
    for (const url of assets) {
      expect(url.origin).toBe(s.url);
      const res = await fetch(url);
      expect(res.status, url.pathname).toBe(200);
      const type = res.headers.get('content-type');
      if (url.pathname.endsWith('.js')) expect(type).toMatch(/^text\/javascript/);
      if (url.pathname.endsWith('.css')) expect(type).toMatch(/^text\/css/);
      if (url.pathname.endsWith('.png')) expect(type).toBe('image/png');
    }
    const bundle = Buffer.from(await (await fetch(`${s.url}/api/docs/swagger-ui-bundle.js`)).arrayBuffer());
    expect(bundle.equals(readFileSync(join(packageDir, 'swagger-ui-bundle.js')))).toBe(true);
    const init = await (await fetch(`${s.url}/api/docs/init.js`)).text();
    expect(init).toMatch(/url: 'v2\/openapi.json'/);
    expect(init).toMatch(/validatorUrl: null/);
  });

  it('answers 304 to a client that has the file, 404 for other files, 405 for other methods', async () => {
    const first = await fetch(`${s.url}/api/docs/swagger-ui.css`);
    const etag = first.headers.get('etag')!;
    expect((await fetch(`${s.url}/api/docs/swagger-ui.css`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    for (const path of ['/api/docs/package.json', '/api/docs/%2e%2e/package.json', '/api/docs/index.html', '/api/docs/docs']) {
      expect((await fetch(`${s.url}${path}`)).status, path).toBe(404);
    }
    const post = await fetch(`${s.url}/api/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    const slash = await fetch(`${s.url}/api/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(308);
    expect(new URL(slash.headers.get('location')!, `${s.url}/api/docs/`).pathname).toBe('/api/docs');
  });
});
