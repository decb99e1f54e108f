/** @module GET /v0/health: whether this process's sentence embeddings work (any valid token; our addition). */
import type { Health } from '../../../protocol/schemas/index.js';
import type { EmbeddingStatus } from '../../knowledge/index.js';
import { json } from '../exchange.js';
import type { Route } from '../router.js';

/** The route, reading the knowledge base's embedding status; an engine without one reports `off`. */
export function healthRoutes({ embeddings }: { embeddings: (() => EmbeddingStatus) | null }): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v0/health',
      scope: 'any',
      handler: () => {
        const body: Health = { embeddings: embeddings?.() ?? { state: 'off', threads: 0, size: 0 } };
        return json(body, 200, { 'cache-control': 'no-store' });
      },
    },
  ];
}
