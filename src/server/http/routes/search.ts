/** @module GET /v0/search: the organization's docs, ranked as answers rank them, as search results (scope `chat:read`, our addition). */
import { SEARCH_LIMIT_DEFAULT } from '../../../protocol/limits.js';
import { readSearchQuery, type SearchResults } from '../../../protocol/schemas/index.js';
import { searchDocs, type Ranking } from '../../knowledge/search.js';
import { json } from '../exchange.js';
import type { Route } from '../router.js';

/** The route, bound to the knowledge base it searches; null (an engine without one) answers no results. */
export function searchRoutes({ knowledge }: { knowledge: Ranking | null }): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v0/search',
      scope: 'chat:read',
      handler: async (ctx) => {
        const { q, limit, page_url } = readSearchQuery(ctx.query);
        const body: SearchResults = {
          results: knowledge ? await searchDocs(knowledge, ctx.auth!.orgId, q, { limit: limit ?? SEARCH_LIMIT_DEFAULT, pageUrl: page_url }) : [],
        };
        return json(body, 200, { 'cache-control': 'no-store' });
      },
    },
  ];
}
