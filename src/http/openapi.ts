import { z } from 'zod';
import { MAX_INPUT_DEPTH } from '../domain/validation.js';
import { apiSchemas, errorDocuments } from './api-schemas.js';
import type { ErrorStatus } from './api-schemas.js';
import type { Route } from './routes.js';

/** The API description, OpenAPI 3.1, built from the route table and the zod schemas that validate and shape its data. */

type Json = Record<string, unknown>;

const COMPONENT = '#/components/schemas/';
const JSON_TYPE = 'application/json';

/** What a schema accepts, in the description's dialect (JSON Schema 2020-12), without the keys of a standalone schema. */
function inputSchema(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Json;
  return rest;
}

function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(apiSchemas, { target: 'draft-2020-12', uri: (id) => `${COMPONENT}${id}` });
  if ('__shared' in schemas) throw new Error('api-schemas.ts: a schema is shared without a name; give it one with named()');
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Json;
      return [id, rest];
    }),
  );
}

function ref(schema: z.ZodType, where: string): Json {
  const id = apiSchemas.get(schema)?.id;
  if (!id) throw new Error(`${where}: the schema is not one of api-schemas.ts`);
  return { $ref: `${COMPONENT}${id}` };
}

/** A header that is always sent with the answer it is listed for. */
const header = (description: string): Json => ({ description, required: true, schema: { type: 'string' } });

/** The answers of HTTP itself, and the headers that come with them. */
const ERRORS: Record<ErrorStatus, { description: string; headers?: Record<string, Json> }> = {
  400: { description: 'The request is malformed' },
  401: {
    description: 'The Authorization header is missing, not `Bearer <API_KEY>`, or names no key',
    headers: { 'WWW-Authenticate': header('`Bearer`') },
  },
  403: { description: 'Forbidden' },
  404: { description: 'No such resource for you; existence is never revealed' },
  405: {
    description: 'The path is known, the method is not',
    headers: { Allow: header('The methods the path answers to') },
  },
  413: { description: 'The body is over 1 MiB' },
  422: { description: 'A field is invalid: one error per field, its `source` pointing at it' },
  429: {
    description: 'Over the rate limit of the API key (or, for failed authentications, of the address)',
    headers: { 'Retry-After': header('Seconds to wait') },
  },
  503: {
    description: 'The database cannot be reached; nothing was changed',
    headers: { 'Retry-After': header('Seconds to wait') },
  },
};

function errorResponse(status: ErrorStatus, description: string): Json {
  const { headers } = ERRORS[status];
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [JSON_TYPE]: { schema: ref(errorDocuments[status], `error ${status}`) } },
  };
}

/** `/incidents/:id` → `/incidents/{id}`, and the names of its parameters. */
function openApiPath(path: string): { path: string; names: string[] } {
  const names: string[] = [];
  const converted = path.replace(/:([a-z_]+)/g, (_, name: string) => {
    names.push(name);
    return `{${name}}`;
  });
  return { path: converted, names };
}

function parameters(route: Route, names: string[], where: string): Json[] {
  const { doc } = route;
  const documented = Object.keys(doc.params ?? {});
  if (documented.length !== names.length || names.some((n) => !documented.includes(n))) {
    throw new Error(`${where}: doc.params must describe exactly ${names.join(', ') || 'nothing'}`);
  }
  const parameter = (name: string, location: 'path' | 'query', schema: Json, required: boolean): Json => {
    const { description, ...rest } = schema;
    return { name, in: location, required, ...(description ? { description } : {}), schema: rest };
  };
  const path = names.map((name) => parameter(name, 'path', inputSchema(doc.params![name]!), true));
  if (!doc.query) return path;
  const query = inputSchema(doc.query) as { properties: Record<string, Json>; required?: string[] };
  return [...path, ...Object.entries(query.properties).map(([name, schema]) => parameter(name, 'query', schema, query.required?.includes(name) ?? false))];
}

function operation(route: Route, names: string[]): Json {
  const { doc } = route;
  const where = `${route.method} ${route.path}`;
  const { success } = doc;
  const responses: Record<string, Json> = {
    [success.status]: {
      description: success.description,
      ...(success.headers ? { headers: Object.fromEntries(Object.entries(success.headers).map(([name, text]) => [name, header(text)])) } : {}),
      ...(success.schema ? { content: { [success.mediaType ?? JSON_TYPE]: { schema: ref(success.schema, where) } } } : {}),
    },
  };
  const errors: [ErrorStatus, string][] = [];
  if (doc.body || names.length > 0) {
    const causes = [
      ...(doc.body ? ['the body is not a JSON object sent as `application/json`'] : []),
      ...(names.length > 0 ? ['a path segment is not percent-encoded UTF-8 text'] : []),
    ];
    errors.push([400, `${ERRORS[400].description}: ${causes.join('; or ')}`]);
  }
  errors.push([
    401,
    route.caller === 'agent'
      ? "The Authorization header is missing, not `Bearer <TOKEN>`, or names no probe agent's token (an API key is refused)"
      : ERRORS[401].description,
  ]);
  if (doc.errors?.[403]) errors.push([403, doc.errors[403]]);
  if (doc.errors?.[404]) errors.push([404, doc.errors[404]]);
  else if (names.length > 0) throw new Error(`${where}: a path with parameters answers 404; say when in doc.errors`);
  if (doc.body) errors.push([413, ERRORS[413].description]);
  if (doc.body || doc.query || doc.errors?.[422]) {
    const tooDeep = doc.body ? `the body nests arrays and objects more than ${MAX_INPUT_DEPTH} levels deep` : undefined;
    errors.push([422, [ERRORS[422].description, doc.errors?.[422], tooDeep].filter(Boolean).join('; or ')]);
  }
  errors.push([429, ERRORS[429].description], [503, ERRORS[503].description]);
  for (const [status, description] of errors) responses[status] = errorResponse(status, description);

  const params = parameters(route, names, where);
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(route.caller === 'agent' ? { security: [{ agentToken: [] }] } : {}),
    ...(doc.description ? { description: doc.description } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: doc.body.required,
            ...(doc.body.description ? { description: doc.body.description } : {}),
            content: { [JSON_TYPE]: { schema: inputSchema(doc.body.schema) } },
          },
        }
      : {}),
    responses,
  };
}

/** A heartbeat monitor's push address (answered by the server itself, beside the route table): its token is its only credential. */
function heartbeatOperation(method: 'get' | 'post'): Json {
  const query = (name: string, description: string, schema: Json): Json => ({ name, in: 'query', required: false, description, schema });
  return {
    operationId: method === 'get' ? 'getHeartbeat' : 'postHeartbeat',
    tags: ['Heartbeats'],
    summary: `Report in for a heartbeat monitor (${method.toUpperCase()})`,
    description:
      "A cron job or a backup script calls its monitor's `push_url` (see `GET /custom_monitors`) each time it runs, with GET or POST alike, " +
      'and without an API key: the token in the path is the credential. A heartbeat that does not come within its interval (and grace) takes the monitor down; ' +
      'the next one brings it up again. A body is read and ignored.',
    security: [],
    parameters: [
      { name: 'token', in: 'path', required: true, description: "The secret of the monitor's push address", schema: { type: 'string' } },
      query('status', '`down`: the job ran and failed, which takes the monitor down at once; anything else, or none, is a success', { type: 'string' }),
      query('msg', 'Why it failed, shown in the incident (cut at 200 characters)', { type: 'string' }),
    ],
    responses: {
      204: { description: 'The heartbeat was recorded' },
      400: errorResponse(400, `${ERRORS[400].description}: a path segment is not percent-encoded UTF-8 text`),
      404: errorResponse(404, 'No heartbeat monitor has this token'),
      413: errorResponse(413, ERRORS[413].description),
      429: errorResponse(429, 'Over the rate limit of the address: each unknown token costs from it'),
      503: errorResponse(503, ERRORS[503].description),
    },
  };
}

const DESCRIPTION = `The HTTP API of statusbot: third-party service status, incidents on your custom services, custom monitors and boards.

Every request carries \`Authorization: Bearer <API_KEY>\` (a probe agent's request, its token; a heartbeat,
nothing). A success is \`{"data": …}\`; an error is \`{"errors": [{"status", "title", "detail", "source"?}]}\`
with \`status\` equal to the HTTP status. Ids are strings (\`service_id\` is an integer); timestamps are ISO 8601
UTC with milliseconds.

Besides the answers listed with each operation: an unknown path under \`/api/v2\` is a \`404\`, a known path
asked with another method a \`405\` whose \`Allow\` header lists its methods, and a body over 1 MiB a \`413\`
whatever the operation.`;

/** The OpenAPI 3.1 document of the routes. Throws when a route's documentation does not fit its path. */
export function buildOpenApiDocument(apiRoutes: readonly Route[]): Json {
  const schemas = componentSchemas();
  const paths: Record<string, Record<string, Json>> = {
    '/openapi.json': {
      get: {
        operationId: 'getApiDescription',
        tags: ['API description'],
        summary: 'This document',
        security: [],
        responses: {
          200: {
            description: 'The OpenAPI 3.1 description of the API',
            content: { [JSON_TYPE]: { schema: { type: 'object' } } },
          },
        },
      },
    },
  };
  paths['/heartbeats/{token}'] = { get: heartbeatOperation('get'), post: heartbeatOperation('post') };
  for (const route of apiRoutes) {
    const { path, names } = openApiPath(route.path);
    paths[path] ??= {};
    const item = paths[path];
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.method} ${route.path} is in the route table twice`);
    item[method] = operation(route, names);
  }
  return {
    openapi: '3.1.1',
    info: { title: 'statusbot API', version: '2', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/api/v2' }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Services', description: "The third-party catalog, a service's status and incidents, user reports" },
      { name: 'Incidents', description: 'Incidents on your custom services' },
      { name: 'Custom monitors', description: 'Your probes of a URL and their outages' },
      { name: 'Boards', description: 'Named groups of third-party services, with tags' },
      { name: 'Maintenance', description: 'Scheduled maintenance of your custom services' },
      { name: 'Audit', description: 'Who changed what in your company, from every front' },
      { name: 'Alerts', description: 'Alerts of Alertmanager, Grafana and any monitoring tool, as incidents' },
      { name: 'Probe agents', description: "For `statusbot agent`, with a probe agent's token: its monitors, and its results" },
      { name: 'Heartbeats', description: 'Where scheduled jobs report in, without an API key' },
      { name: 'API description', description: 'This document, without authentication' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "An API key of your company: one of the config file's `api_keys`, or one issued by `statusbot key create`",
        },
        agentToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A probe agent's token, issued by `statusbot key create --agent --company NAME --region NAME`: it names the agent's region, " +
            "and opens the probe agents' operations and nothing else",
        },
      },
      responses: {
        MethodNotAllowed: errorResponse(405, ERRORS[405].description),
        UnknownPath: errorResponse(404, 'No route has this path'),
      },
    },
  };
}
