/**
 * @module What the local Plain, Pylon and Linear servers share: an HTTP server on 127.0.0.1 that
 * checks the API key, records every request, and can be told to fail the next matching request
 * the ways the real services fail (429 with reset headers, 5xx, a hang past the client's timeout,
 * a GraphQL error inside a 200, or doing the work and then losing the answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql, parse, validate, type GraphQLSchema } from 'graphql';

export type Failure =
  | { mode: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Never answers (the client's timeout fires); the work is not done. */
  | { mode: 'hang' }
  /** Does the work, then never answers: the client cannot know it succeeded. */
  | { mode: 'lose-answer' }
  /** HTTP 200 with a GraphQL `errors` array. */
  | { mode: 'graphql-error'; message: string; code?: string };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** GraphQL operation name, or `METHOD /path` for REST. */
  operation: string;
  body: unknown;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Fails the next request whose operation is `operation` (or any request when omitted). */
  failNext(failure: Failure, operation?: string): void;
  close(): Promise<void>;
}

export interface Handled {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Pending {
  failure: Failure;
  operation: string | undefined;
}

/** Starts a server; `handle` gets the parsed JSON body (undefined for none) and answers. */
export async function startFake(options: {
  authorized: (header: string | undefined) => boolean;
  unauthorized: () => Handled;
  operationOf: (method: string, path: string, body: unknown) => string;
  handle: (method: string, path: string, body: unknown) => Promise<Handled> | Handled;
}): Promise<FakeServer> {
  const pending: Pending[] = [];
  const hanging = new Set<ServerResponse>();
  const requests: RecordedRequest[] = [];
  const send = (res: ServerResponse, handled: Handled) => {
    res.writeHead(handled.status, { 'content-type': 'application/json', ...handled.headers });
    res.end(JSON.stringify(handled.body));
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        let body: unknown;
        if (raw) {
          if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return send(res, { status: 415, body: { error: 'Content-Type must be application/json' } });
          try {
            body = JSON.parse(raw);
          } catch {
            return send(res, { status: 400, body: { error: 'Request body is not valid JSON' } });
          }
        }
        const operation = options.operationOf(req.method ?? 'GET', url.pathname, body);
        requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, operation, body });
        if (!options.authorized(req.headers.authorization)) return send(res, options.unauthorized());
        const at = pending.findIndex((p) => p.operation === undefined || p.operation === operation);
        const failure = at >= 0 ? pending.splice(at, 1)[0]!.failure : undefined;
        if (failure?.mode === 'hang') {
          hanging.add(res);
          return;
        }
        if (failure?.mode === 'status') return send(res, { status: failure.status, headers: failure.headers, body: failure.body ?? { error: `status ${failure.status}` } });
        if (failure?.mode === 'graphql-error') {
          return send(res, { status: 200, body: { data: null, errors: [{ message: failure.message, extensions: failure.code ? { code: failure.code } : {} }] } });
        }
        const handled = await options.handle(req.method ?? 'GET', url.pathname + url.search, body);
        if (failure?.mode === 'lose-answer') {
          hanging.add(res);
          return;
        }
        send(res, handled);
      })().catch((error: unknown) => send(res, { status: 500, body: { error: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(failure, operation) {
      pending.push({ failure, operation });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A strict GraphQL endpoint: the request must be `{query, variables?, operationName?}` and the
 * document must validate against `sdl` (unknown fields, unknown input fields and wrong types are
 * rejected with a 400, as a GraphQL server does before executing anything).
 */
export function graphqlHandler(sdl: string, rootValue: Record<string, unknown>): {
  schema: GraphQLSchema;
  operationOf: (method: string, path: string, body: unknown) => string;
  handle: (method: string, path: string, body: unknown) => Promise<Handled>;
} {
  const schema = buildSchema(sdl);
  return {
    schema,
    operationOf: (_method, _path, body) => {
      const b = body as { operationName?: unknown; query?: unknown } | undefined;
      if (typeof b?.operationName === 'string') return b.operationName;
      const m = typeof b?.query === 'string' ? /(?:query|mutation)\s+(\w+)/.exec(b.query) : null;
      return m?.[1] ?? 'anonymous';
    },
    async handle(method, path, body) {
      if (method !== 'POST') return { status: 405, body: { errors: [{ message: 'GraphQL requests must be POST' }] } };
      const b = body as Record<string, unknown> | undefined;
      if (!b || typeof b !== 'object') return { status: 400, body: { errors: [{ message: 'Body must be a JSON object' }] } };
      for (const key of Object.keys(b)) {
        if (!['query', 'variables', 'operationName'].includes(key)) return { status: 400, body: { errors: [{ message: `Unknown request field "${key}"` }] } };
      }
      if (typeof b.query !== 'string') return { status: 400, body: { errors: [{ message: 'Must provide query string.' }] } };
      let document;
      try {
        document = parse(b.query);
      } catch (error) {
        return { status: 400, body: { errors: [{ message: String((error as Error).message), extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] } };
      }
      const problems = validate(schema, document);
      if (problems.length > 0) return { status: 400, body: { errors: problems.map((p) => ({ message: p.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) } };
      const result = await graphql({
        schema,
        source: b.query,
        rootValue,
        variableValues: (b.variables as Record<string, unknown> | undefined) ?? {},
        operationName: typeof b.operationName === 'string' ? b.operationName : undefined,
      });
      // Variables that do not fit their types are a request error (400), like unknown fields.
      if (result.errors && !result.data) {
        return { status: 400, body: { errors: result.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })) } };
      }
      const errors = result.errors?.map((e) => ({ message: e.message, path: e.path, extensions: (e.originalError as { extensions?: unknown } | undefined)?.extensions ?? e.extensions }));
      return { status: 200, body: errors ? { data: result.data, errors } : { data: result.data } };
    },
  };
}

/** An error a resolver throws to produce a GraphQL error with an extensions code. */
export class GraphQLCodeError extends Error {
  readonly extensions: { code: string };
  constructor(message: string, code: string) {
    super(message);
    this.extensions = { code };
  }
}
