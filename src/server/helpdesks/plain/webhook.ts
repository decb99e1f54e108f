/**
 * @module Plain webhooks: `Plain-Request-Signature` is the hex HMAC-SHA256 of the body; the body's
 * `timestamp` must be within 5 minutes. Thread events upsert or remove the synced ticket.
 */
import { hmacHex, invalidSignature, object, parseBody, sameText, text } from '../receiver.js';
import type { WebhookEffect, WebhookReceiver } from '../types.js';
import { plainThreadUrl, type PlainThread } from './client.js';
import { plainThreadTicket } from './sync.js';

/** Plain's own SDK refuses deliveries older than 300 seconds. */
const PLAIN_TOLERANCE_MS = 5 * 60_000;

export const plainWebhook: WebhookReceiver = {
  verify({ raw, header, secret, now }) {
    if (!sameText(hmacHex(secret, raw), header('plain-request-signature'))) throw invalidSignature();
    const body = parseBody(raw);
    // Plain signs the body only; its top-level `timestamp` (ISO 8601) says when the event was sent.
    const sent = typeof body.timestamp === 'string' ? Date.parse(body.timestamp) : Number.NaN;
    if (!Number.isFinite(sent) || Math.abs(now - sent) > PLAIN_TOLERANCE_MS) throw invalidSignature();
    return body;
  },
  parse(body): WebhookEffect {
    const payload = object(body.payload, 'payload');
    const eventType = text(payload.eventType ?? body.type, 'payload.eventType');
    if (!eventType.startsWith('thread.') || payload.thread === undefined) return { kind: 'ignore' };
    const thread = object(payload.thread, 'payload.thread');
    const id = text(thread.id, 'payload.thread.id');
    if (eventType.endsWith('_deleted')) return { kind: 'remove', externalId: id };
    const workspaceId = text(body.workspaceId, 'workspaceId');
    const customer = object(thread.customer, 'payload.thread.customer');
    const email = customer.email as { email?: unknown } | null | undefined;
    const checked: PlainThread = {
      id,
      externalId: typeof thread.externalId === 'string' ? thread.externalId : null,
      title: text(thread.title, 'payload.thread.title'),
      previewText: typeof thread.previewText === 'string' ? thread.previewText : null,
      status: text(thread.status, 'payload.thread.status'),
      priority: typeof thread.priority === 'number' ? thread.priority : 2,
      customer: {
        id: typeof customer.id === 'string' ? customer.id : '',
        fullName: typeof customer.fullName === 'string' ? customer.fullName : '',
        email: typeof email?.email === 'string' ? { email: email.email } : null,
      },
      createdAt: { iso8601: text(object(thread.createdAt, 'payload.thread.createdAt').iso8601, 'payload.thread.createdAt.iso8601') },
      updatedAt: { iso8601: text(object(thread.updatedAt, 'payload.thread.updatedAt').iso8601, 'payload.thread.updatedAt.iso8601') },
    };
    return { kind: 'upsert', ticket: plainThreadTicket(checked, plainThreadUrl(workspaceId, id)) };
  },
};
