/** @module GET /v0/insights: the organization's insights report over a period (scope `insights:read`, our addition). */
import { insightsReport } from '../../insights/report.js';
import { parsePeriod, PeriodError } from '../../insights/period.js';
import type { Sql } from '../../store/sql.js';
import { badRequest } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

/** The route, bound to the database it reads. */
export function insightsRoutes({ sql }: { sql: Sql }): Route[] {
  async function report(ctx: RouteContext): Promise<ApiResponse> {
    let period: { since: Date; until: Date };
    try {
      period = parsePeriod({ since: ctx.query.get('since'), until: ctx.query.get('until') }, ctx.services.now());
    } catch (error) {
      if (error instanceof PeriodError) throw badRequest(error.message);
      throw error;
    }
    return json(await insightsReport(sql, { orgId: ctx.auth!.orgId, ...period }), 200, { 'cache-control': 'no-store' });
  }
  return [{ method: 'GET', pattern: '/v0/insights', scope: 'insights:read', handler: report }];
}
