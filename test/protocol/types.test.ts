/**
 * @module The wire types and the zod schemas are one description: `tsc` (npm run typecheck) fails on
 * the type assertions below when a public type and its response schema drift apart, and the
 * examples, written as the public types, must parse with the schemas unchanged.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  Conversation,
  ConversationSummary,
  ConversationVisitor,
  ErrorBody,
  EscalationResult,
  Message,
  SendMessageResult,
  Source,
  Ticket,
  TokenInfo,
} from '../../src/protocol/index.js';
import * as schemas from '../../src/protocol/schemas/index.js';

type Out<T extends z.ZodType> = z.output<T>;

describe('public wire types', () => {
  it('are the response schemas’ types exactly (checked by tsc)', () => {
    expectTypeOf<Conversation>().toEqualTypeOf<Out<typeof schemas.Conversation>>();
    expectTypeOf<Message>().toEqualTypeOf<Out<typeof schemas.Message>>();
    expectTypeOf<Source>().toEqualTypeOf<Out<typeof schemas.Source>>();
    expectTypeOf<ConversationSummary>().toEqualTypeOf<Out<typeof schemas.ConversationSummary>>();
    expectTypeOf<SendMessageResult>().toEqualTypeOf<Out<typeof schemas.SendMessageResult>>();
    expectTypeOf<EscalationResult>().toEqualTypeOf<Out<typeof schemas.EscalationResult>>();
    expectTypeOf<TokenInfo>().toEqualTypeOf<Out<typeof schemas.TokenInfo>>();
    expectTypeOf<Ticket>().toEqualTypeOf<Out<typeof schemas.Ticket>>();
    expectTypeOf<ErrorBody>().toEqualTypeOf<Out<typeof schemas.ErrorResponse>>();
    // The visitor the proxy and server build is one the schema takes, and reads back.
    expectTypeOf<ConversationVisitor>().toExtend<z.input<typeof schemas.ConversationVisitor>>();
    expectTypeOf<ConversationVisitor>().toExtend<Out<typeof schemas.ConversationVisitor>>();
  });

  it('describe examples that the schemas parse unchanged', () => {
    const sources: Source[] = [{ title: 'Reset your password', url: 'https://docs.example.com/reset' }];
    const messages: Message[] = [
      { role: 'user', content: 'How do I reset my password?', sources: [] },
      { role: 'assistant', content: 'Use the **reset** link.', sources, is_uncertain: false },
    ];
    const visitor: ConversationVisitor = { id: 'user-42', email: 'ada@example.com', name: 'Ada', verified: true };
    const conversation: Conversation = { id: 'conv_1', status: 'completed', messages, created_at: '2026-11-28T12:00:00Z', updated_at: '2026-11-28T12:00:05Z', visitor };
    const summary: ConversationSummary = { id: 'conv_1', status: 'processing', created_at: '2026-11-28T12:00:00Z', updated_at: '2026-11-28T12:00:05Z', title: 'How do I reset…' };
    const examples: [z.ZodType, unknown][] = [
      [schemas.Conversation, conversation],
      [schemas.ConversationList, { conversations: [summary] }],
      [schemas.SendMessageResult, { conversation_id: 'conv_1', status: 'processing' } satisfies SendMessageResult],
      [schemas.EscalationResult, { success: true, integration: 'acme-desk', ticket_id: 'T-1', ticket_url: 'https://desk.example.com/T-1' } satisfies EscalationResult],
      [schemas.TokenInfo, { token: { name: 'website', prefix: 'sk_abc', scopes: ['chat:read', 'chat:write'] }, organization: { id: 'acme' } } satisfies TokenInfo],
      [schemas.ErrorResponse, { error: { code: 'not_found', message: 'Resource not found' } } satisfies ErrorBody],
    ];
    for (const [schema, example] of examples) expect(schema.parse(example)).toEqual(example);
  });
});
