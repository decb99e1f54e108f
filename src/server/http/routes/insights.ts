/** @module GET /v0/insights: the organization's insights report over a period (scope `insights:read`, our addition). */
import { insightsReport } from '../../insights/report.js';
import { parsePeriod, PeriodError } from '../../insights/period.js';
import type { Db } from '../../store/database.js';
import { badRequest } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

/** The route, bound to the database it reads. */
export function insightsRoutes({ db }: { db: Db }): Route[] {
  function report(ctx: RouteContext): ApiResponse {
    let period: { since: Date; until: Date };
    try {
      period = parsePeriod({ since: ctx.query.get('since'), until: ctx.query.get('until') }, ctx.services.now());
    } catch (error) {
      if (error instanceof PeriodError) throw badRequest(error.message);
      throw error;
    }
    return json(insightsReport(db, { orgId: ctx.auth!.orgId, ...period }), 200, { 'cache-control': 'no-store' });
  }
  return [{ method: 'GET', pattern: '/v0/insights', scope: 'insights:read', handler: report }];
}
