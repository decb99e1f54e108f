/**
 * @module Pylon webhooks: `Pylon-Webhook-Signature` is `hs256=` + the hex HMAC-SHA256 of
 * `<timestamp>.<body>`; `Pylon-Webhook-Timestamp` must be within 5 minutes. Issue events upsert
 * or remove the synced ticket.
 */
import { hmacHex, invalidSignature, object, parseBody, sameText, text } from '../receiver.js';
import type { WebhookEffect, WebhookReceiver } from '../types.js';
import type { PylonIssue } from './client.js';
import { pylonTicket } from './sync.js';

const PYLON_TOLERANCE_MS = 5 * 60_000;

export const pylonWebhook: WebhookReceiver = {
  verify({ raw, header, secret, now }) {
    const timestamp = header('pylon-webhook-timestamp');
    if (!timestamp || !/^\d{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp) * 1000) > PYLON_TOLERANCE_MS) throw invalidSignature();
    if (!sameText(`hs256=${hmacHex(secret, `${timestamp}.${raw}`)}`, header('pylon-webhook-signature'))) throw invalidSignature();
    return parseBody(raw);
  },
  parse(body): WebhookEffect {
    const eventType = text(body.event_type, 'event_type');
    if (!eventType.startsWith('issue.')) return { kind: 'ignore' };
    const data = object(body.data, 'data');
    const id = text(data.id, 'data.id');
    if (eventType === 'issue.deleted') return { kind: 'remove', externalId: id };
    const issue: PylonIssue = {
      id,
      title: text(data.title, 'data.title'),
      body_html: typeof data.body_html === 'string' ? data.body_html : null,
      state: text(data.state, 'data.state'),
      link: text(data.link, 'data.link'),
      created_at: text(data.created_at, 'data.created_at'),
      latest_message_time: typeof data.latest_message_time === 'string' ? data.latest_message_time : null,
      requester: data.requester && typeof data.requester === 'object' ? (data.requester as PylonIssue['requester']) : null,
    };
    return { kind: 'upsert', ticket: pylonTicket(issue) };
  },
};
