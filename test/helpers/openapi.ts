/** @module Validates responses against the server's own OpenAPI document (a JSON Schema subset checker). */
import { expect } from 'vitest';
import { openApiDocument } from '../../src/server/index.js';

type Schema = Record<string, unknown>;
const doc = openApiDocument as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: Record<string, Record<string, unknown>> };

function resolve(node: unknown): Schema {
  let current = node as Schema;
  while (current && typeof current.$ref === 'string') {
    const [, , group, name] = (current.$ref as string).split('/');
    current = doc.components[group!]![name!] as Schema;
  }
  return current;
}

/** Every violation of `schema` by `value`, as readable paths. */
export function check(value: unknown, schemaNode: unknown, path = '$'): string[] {
  const schema = resolve(schemaNode);
  const errors: string[] = [];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length && !types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) return [`${path}: expected ${types.join('|')}, got ${actual}`];
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if ('const' in schema && schema.const !== value) errors.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) errors.push(`${path}: not a date-time`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: above ${schema.maximum}`);
  }
  if (actual === 'array' && schema.items) (value as unknown[]).forEach((item, i) => errors.push(...check(item, schema.items, `${path}[${i}]`)));
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in obj)) errors.push(`${path}.${key}: required`);
    for (const [key, v] of Object.entries(obj)) {
      if (key in properties) errors.push(...check(v, properties[key], `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${key}: not allowed`);
    }
  }
  return errors;
}

function operation(method: string, pathname: string) {
  for (const [template, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return ops[method.toLowerCase()];
  }
  return undefined;
}

/**
 * Asserts that a response is described by the OpenAPI document: its status is listed for the
 * operation (unknown routes must be errors), its rate-limit headers are there, and its JSON body fits.
 */
export async function expectDocumented(method: string, url: string, response: Response): Promise<unknown> {
  const pathname = new URL(url).pathname;
  const body = response.status === 204 ? null : await response.clone().json();
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers.get(header), `${header} on ${method} ${pathname} ${response.status}`).toMatch(/^\d+$/);
  }
  const op = operation(method, pathname);
  if (!op || response.status === 405) {
    expect(check(body, { $ref: '#/components/schemas/Error' }), `${method} ${pathname}`).toEqual([]);
    return body;
  }
  const described = op.responses[String(response.status)] as Schema | undefined;
  expect(described, `${method} ${pathname} answered ${response.status}, which the document does not list`).toBeDefined();
  const resolved = resolve(described);
  const content = resolved.content as Record<string, { schema: unknown }> | undefined;
  if (content) expect(check(body, content['application/json']!.schema), `${method} ${pathname} ${response.status}`).toEqual([]);
  else expect(body).toBeNull();
  if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  return body;
}
