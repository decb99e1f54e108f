/** @module POST /v0/chat/{id}/feedback: a visitor's rating of an answer (our addition, scope `chat:write`). */
import type { FeedbackStore } from '../../insights/feedback.js';
import { isConversationId } from '../../../protocol/index.js';
import { FeedbackRequest, parseBody } from '../../../protocol/schemas/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

export interface FeedbackRouteDeps {
  feedback: FeedbackStore;
}

/** The routes, bound to their stores. */
export function feedbackRoutes({ feedback }: FeedbackRouteDeps): Route[] {
  async function rate(ctx: RouteContext): Promise<ApiResponse> {
    const id = ctx.params.id!;
    if (!isConversationId(id)) throw notFound();
    const { rating, comment, message_index } = parseBody(FeedbackRequest, ctx.body());
    const outcome = await feedback.record({
      orgId: ctx.auth!.orgId,
      conversationId: id,
      rating,
      comment: comment?.trim() || undefined,
      messageIndex: message_index ?? undefined,
    });
    if (!outcome.ok) {
      if (outcome.reason === 'not_found') throw notFound();
      if (outcome.reason === 'no_answer') throw conflict('The conversation has no answer to rate yet');
      throw badRequest('"message_index" must be the index of an assistant message in the conversation');
    }
    return json({ success: true });
  }

  return [
    { method: 'POST', pattern: '/v0/chat/:id/feedback', scope: 'chat:write', handler: rate },
  ];
}
