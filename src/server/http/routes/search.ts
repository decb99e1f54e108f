/** @module GET /v0/search: the organization's docs, ranked as answers rank them, as search results (scope `chat:read`, our addition). */
import { SEARCH_LIMIT_DEFAULT } from '../../../protocol/limits.js';
import { readSearchQuery, type SearchResults } from '../../../protocol/schemas/index.js';
import type { SearchLog } from '../../insights/searches.js';
import { searchDocs, type Ranking } from '../../knowledge/index.js';
import { json } from '../exchange.js';
import { visitorPage } from '../page-url.js';
import type { Route } from '../router.js';

/**
 * The route, bound to the knowledge base it searches (null, an engine without one, answers no
 * results) and the log of searches the insights report reads (null: not recorded).
 */
export function searchRoutes({ knowledge, searches = null }: { knowledge: Ranking | null; searches?: SearchLog | null }): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v0/search',
      scope: 'chat:read',
      bucket: 'search',
      handler: async (ctx) => {
        const { q, limit, page_url } = readSearchQuery(ctx.query);
        const body: SearchResults = {
          results: knowledge ? await searchDocs(knowledge, ctx.auth!.orgId, q, { limit: limit ?? SEARCH_LIMIT_DEFAULT, pageUrl: page_url && visitorPage(page_url) }) : [],
        };
        // A search is answered even when it could not be recorded (a busy or failing database): the report is a count, not a ledger.
        await searches?.record({ orgId: ctx.auth!.orgId, query: q, results: body.results.length, pageUrl: page_url }).catch(() => undefined);
        return json(body, 200, { 'cache-control': 'no-store' });
      },
    },
  ];
}
