import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { apiSchemas, errorDocuments } from '../../src/http/api-schemas.js';
import type { ErrorStatus } from '../../src/http/api-schemas.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { routes } from '../../src/http/routes.js';

/**
 * Checks answers of `/api/v2` against the API description: each must be one
 * the description lists for its operation (or, for a path or method that has
 * none, the 404 or 405 it promises), with a body that validates against the
 * documented schema and the headers it says are sent.
 */

type Json = Record<string, any>;

export interface ApiAnswer {
  method: string;
  /** The request target, query included. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

const DOCUMENT_ID = 'https://statusbot.invalid/openapi.json';
/** Answers any path of the API may give, before a route is chosen. */
const ANY_PATH = new Set([400, 401, 404, 405, 413, 429, 503]);

export interface ApiDocumentCheck {
  document: Json;
  /** What is wrong with the answer; empty when it is as documented. */
  problems(answer: ApiAnswer): string[];
}

function createCheck(): ApiDocumentCheck {
  const document = buildOpenApiDocument(routes) as Json;
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  formats.default(ajv);
  // The document's own keys: known to Ajv, so that the pointers below can reach into them.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
  ajv.addSchema(document, DOCUMENT_ID);

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

  const templates = Object.keys(document.paths as Json).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  function bodyProblems(schemaPointer: string, answer: ApiAnswer): string[] {
    if (answer.method === 'HEAD') return [];
    const problems: string[] = [];
    if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) {
      problems.push(`Content-Type is ${answer.headers.get('content-type')}, not application/json`);
    }
    const validate = validatorAt(schemaPointer);
    if (!validate(answer.body)) {
      for (const e of validate.errors ?? []) problems.push(`body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
    }
    return problems;
  }

  function responseProblems(response: Json, pointer: string, answer: ApiAnswer): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if (header.required && !answer.headers.has(name)) problems.push(`the ${name} header is missing`);
    }
    if (!response.content?.['application/json']) {
      // A documented body of another media type (a Markdown document): its type, and its text against the schema.
      const type = Object.keys(response.content ?? {})[0];
      if (type !== undefined) {
        if (answer.method === 'HEAD') return problems;
        if ((answer.headers.get('content-type') ?? '').split(';')[0]!.trim() !== type) {
          problems.push(`Content-Type is ${answer.headers.get('content-type')}, not ${type}`);
        }
        const validate = validatorAt(`${pointer}/content/${escapePointer(type)}/schema`);
        if (!validate(answer.text)) for (const e of validate.errors ?? []) problems.push(`body${e.instancePath} ${e.message}`);
        return problems;
      }
      if (answer.text !== '') problems.push(`a body was sent where none is documented: ${answer.text.slice(0, 200)}`);
      return problems;
    }
    return [...problems, ...bodyProblems(`${pointer}/content/application~1json/schema`, answer)];
  }

  function problems(answer: ApiAnswer): string[] {
    // The path as fetch sent it: dot segments resolved.
    const path = new URL(answer.path, 'http://localhost').pathname.slice('/api/v2'.length) || '/';
    const found = templates.find((t) => t.pattern.test(path));
    const method = (answer.method === 'HEAD' ? 'GET' : answer.method).toLowerCase();
    const operation = found ? (document.paths[found.template] as Json)[method] : undefined;
    if (!operation) {
      // No operation: the answers every path may give, 404 and 405 as components.responses describe them.
      if (!ANY_PATH.has(answer.status)) return [`${answer.status} is not an answer of a path without this operation`];
      const named = answer.status === 405 ? 'MethodNotAllowed' : answer.status === 404 ? 'UnknownPath' : undefined;
      if (named) return responseProblems(document.components.responses[named], `/components/responses/${named}`, answer);
      const id = apiSchemas.get(errorDocuments[answer.status as ErrorStatus])!.id;
      return bodyProblems(`/components/schemas/${id}`, answer);
    }
    const response = operation.responses[String(answer.status)];
    if (!response) {
      return [
        `${answer.status} is not among the documented answers (${Object.keys(operation.responses).join(', ')}) of ${method.toUpperCase()} ${found!.template}`,
      ];
    }
    return responseProblems(response, `/paths/${escapePointer(found!.template)}/${method}/responses/${answer.status}`, answer);
  }

  return { document, problems };
}

let check: ApiDocumentCheck | undefined;

/** Built once per test file (a vitest worker), when first used. */
export function apiDocumentCheck(): ApiDocumentCheck {
  check ??= createCheck();
  return check;
}
