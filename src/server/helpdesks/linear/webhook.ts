/**
 * @module Linear webhooks: `Linear-Signature` is the hex HMAC-SHA256 of the body; the body's
 * `webhookTimestamp` must be within 60 s. Issue events of the configured team upsert or remove
 * the synced ticket.
 */
import { hmacHex, invalidSignature, object, parseBody, sameText, text } from '../receiver.js';
import type { WebhookEffect, WebhookReceiver } from '../types.js';
import type { LinearIssue } from './client.js';
import { linearTicket } from './sync.js';

const LINEAR_TOLERANCE_MS = 60_000;

export const linearWebhook: WebhookReceiver = {
  verify({ raw, header, secret, now }) {
    if (!sameText(hmacHex(secret, raw), header('linear-signature'))) throw invalidSignature();
    const body = parseBody(raw);
    const sent = body.webhookTimestamp;
    if (typeof sent !== 'number' || Math.abs(now - sent) > LINEAR_TOLERANCE_MS) throw invalidSignature();
    return body;
  },
  parse(body, settings): WebhookEffect {
    const teamId = settings.teamId;
    if (body.type !== 'Issue') return { kind: 'ignore' };
    const action = text(body.action, 'action');
    const data = object(body.data, 'data');
    const id = text(data.id, 'data.id');
    // Sync reads the configured team only; deliveries about other teams' issues are not ours.
    const issueTeam = typeof data.teamId === 'string' ? data.teamId : (data.team as { id?: unknown } | undefined)?.id;
    if (teamId && issueTeam !== undefined && issueTeam !== teamId) return { kind: 'ignore' };
    if (action === 'remove') return { kind: 'remove', externalId: id };
    if (action !== 'create' && action !== 'update') return { kind: 'ignore' };
    const state = object(data.state, 'data.state');
    const issue: LinearIssue = {
      id,
      identifier: typeof data.identifier === 'string' ? data.identifier : id,
      title: text(data.title, 'data.title'),
      description: typeof data.description === 'string' ? data.description : null,
      url: text(data.url ?? body.url, 'data.url'),
      priority: typeof data.priority === 'number' ? data.priority : 0,
      createdAt: text(data.createdAt, 'data.createdAt'),
      updatedAt: text(data.updatedAt, 'data.updatedAt'),
      state: { name: text(state.name, 'data.state.name') },
      team: { id: typeof issueTeam === 'string' ? issueTeam : '' },
    };
    return { kind: 'upsert', ticket: linearTicket(issue) };
  },
};
