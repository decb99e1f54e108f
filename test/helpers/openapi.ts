/**
 * @module Checks requests and responses against the server's OpenAPI document (as served at
 * `GET /v0/openapi.json`) with a real JSON Schema validator: ajv, draft 2020-12 as OpenAPI 3.1 uses,
 * with the standard formats.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { openApiDocument } from '../../src/server/index.js';

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

type Node = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Node;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Node }> };
  responses: Record<string, Node>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Node>>;
}

const DOCUMENT_ID = 'openapi.json';

/** One document compiled: a validator per schema node, made when first needed. */
export class OpenApiValidator {
  readonly #doc: Document;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<Node, ValidateFunction>();
  readonly #templates: { template: string; pattern: RegExp; names: string[] }[];

  constructor(doc: unknown) {
    this.#doc = doc as Document;
    // strict: false, since the document's non-schema keys (openapi, paths, examples…) are not keywords.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema(doc as object, DOCUMENT_ID);
    this.#templates = Object.keys(this.#doc.paths).map((template) => {
      const names: string[] = [];
      const source = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { template, pattern: new RegExp(`^${source}$`), names };
    });
  }

  /** `$ref`s (to components) are followed; schemas, responses and parameters alike. */
  resolve(node: Node): Node {
    let current = node;
    while (typeof current.$ref === 'string') {
      const [, , group, name] = current.$ref.split('/');
      current = this.#doc.components[group!]![name!]!;
    }
    return current;
  }

  /** Every violation of `schema` (a node of this document) by `value`, as readable lines. */
  errors(value: unknown, schema: Node): string[] {
    let validate = this.#validators.get(schema);
    if (!validate) {
      // A reference into the document is compiled against it, so that references inside resolve.
      validate = typeof schema.$ref === 'string' ? this.#ajv.compile({ $ref: `${DOCUMENT_ID}${schema.$ref}` }) : this.#ajv.compile(schema);
      this.#validators.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '$'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  /** The operation a request addresses, with its path parameters. */
  operation(method: string, pathname: string): { op: Operation; params: Record<string, string> } | undefined {
    for (const { template, pattern, names } of this.#templates) {
      const match = pattern.exec(pathname);
      if (!match) continue;
      const op = this.#doc.paths[template]![method.toLowerCase()];
      if (!op) return undefined;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(match[i + 1]!);
        } catch {
          params[name] = match[i + 1]!;
        }
      });
      return { op, params };
    }
    return undefined;
  }

  /**
   * What the document says is wrong with a request: its path parameters, documented headers and
   * JSON body. Empty when the document describes it as valid.
   */
  requestErrors(method: string, url: string, headers: Headers, body: string | undefined): string[] {
    const found = this.operation(method, new URL(url).pathname);
    if (!found) return [];
    const { op, params } = found;
    const errors: string[] = [];
    for (const parameter of op.parameters ?? []) {
      const value = parameter.in === 'path' ? params[parameter.name] : parameter.in === 'header' ? headers.get(parameter.name) ?? undefined : undefined;
      if (value === undefined) continue;
      errors.push(...this.errors(value, parameter.schema).map((e) => `${parameter.in} ${parameter.name}: ${e}`));
    }
    const content = op.requestBody?.content['application/json'];
    if (content && method !== 'GET') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body ?? '');
      } catch {
        return [...errors, 'body: not JSON'];
      }
      errors.push(...this.errors(parsed, content.schema).map((e) => `body: ${e}`));
    }
    return errors;
  }
}

/** The document compiled from the source (for checks outside a request). */
let local: OpenApiValidator | undefined;
export function localValidator(): OpenApiValidator {
  return (local ??= new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument))));
}

/** Every violation of a schema of the document by `value` (`{ $ref: '#/components/schemas/Error' }`, …). */
export function check(value: unknown, schema: Node): string[] {
  return localValidator().errors(value, schema);
}

/** Validators per served document, so that each distinct document is compiled once. */
const served = new Map<string, OpenApiValidator>();

/** The validator of the document a server serves at `GET /v0/openapi.json`. */
export async function servedValidator(fetchDocument: () => Promise<Response>): Promise<OpenApiValidator> {
  const text = await (await fetchDocument()).text();
  let validator = served.get(text);
  if (!validator) served.set(text, (validator = new OpenApiValidator(JSON.parse(text))));
  return validator;
}

/**
 * Asserts that a request and its response are what the document describes: a request the document
 * calls invalid is refused (4xx); the response's status is listed for the operation (unknown routes
 * must be errors), its rate-limit headers are there, and its JSON body fits its schema.
 */
export async function expectDocumented(
  validator: OpenApiValidator,
  request: { method: string; url: string; headers: Headers; body: string | undefined },
  response: Response,
): Promise<unknown> {
  const { method, url } = request;
  const pathname = new URL(url).pathname;
  const body = response.status === 204 ? null : await response.clone().json();
  const requestErrors = validator.requestErrors(method, url, request.headers, request.body);
  if (requestErrors.length > 0) {
    expect(response.status, `${method} ${pathname} is invalid by the document (${requestErrors.join('; ')}) yet answered ${response.status}`).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  }
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers.get(header), `${header} on ${method} ${pathname} ${response.status}`).toMatch(/^\d+$/);
  }
  const found = validator.operation(method, pathname);
  if (!found || response.status === 405) {
    expect(validator.errors(body, { $ref: '#/components/schemas/Error' }), `${method} ${pathname}`).toEqual([]);
    return body;
  }
  const described = found.op.responses[String(response.status)];
  expect(described, `${method} ${pathname} answered ${response.status}, which the document does not list`).toBeDefined();
  const resolved = validator.resolve(described!);
  const content = resolved.content as Record<string, { schema: Node }> | undefined;
  if (content) expect(validator.errors(body, content['application/json']!.schema), `${method} ${pathname} ${response.status}`).toEqual([]);
  else expect(body).toBeNull();
  if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  return body;
}
