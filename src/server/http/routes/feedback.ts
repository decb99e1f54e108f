/** @module POST /v0/chat/{id}/feedback: a visitor's rating of an answer (our addition, scope `chat:write`). */
import { FEEDBACK_COMMENT_MAX_LENGTH, RATINGS, type FeedbackStore, type Rating } from '../../insights/feedback.js';
import { isConversationId } from '../../../protocol/index.js';
import { stringField } from '../body.js';
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
    const body = ctx.body();
    const rating = body.rating;
    if (rating === undefined || rating === null) throw badRequest('"rating" is required');
    if (typeof rating !== 'string' || !(RATINGS as readonly string[]).includes(rating)) throw badRequest('"rating" must be "up" or "down"');
    const comment = stringField(body, 'comment', { required: false, max: FEEDBACK_COMMENT_MAX_LENGTH })?.trim();
    const index = body.message_index;
    if (index !== undefined && index !== null && (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)) {
      throw badRequest('"message_index" must be a non-negative integer');
    }
    const outcome = await feedback.record({
      orgId: ctx.auth!.orgId,
      conversationId: id,
      rating: rating as Rating,
      comment: comment || undefined,
      messageIndex: typeof index === 'number' ? index : undefined,
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
