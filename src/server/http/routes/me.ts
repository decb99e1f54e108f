/** @module GET /v0/me: the calling token and its organization. */
import type { TokenInfo } from '../../../protocol/index.js';
import { json } from '../exchange.js';
import type { Route } from '../router.js';

export const meRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/v0/me',
    scope: 'any',
    handler: (ctx) => {
      const auth = ctx.auth!;
      const info: TokenInfo = {
        token: { name: auth.name, prefix: auth.prefix, scopes: auth.scopes },
        organization: { id: auth.orgId },
      };
      return json(info);
    },
  },
];
