/** @module The generic `webhook` integration: signed JSON tickets and follow-ups POSTed to a URL; nothing to sync or receive. */
import { requireSettings } from '../settings.js';
import type { Helpdesk } from '../types.js';
import { createWebhookIntegration } from './client.js';

export { createWebhookIntegration, signWebhook, verifyWebhookSignature, webhookTicketId, type WebhookTicket, type WebhookTicketMessage } from './client.js';

export const webhook: Helpdesk = {
  name: 'webhook',
  label: 'Webhook',
  settings: { url: 'SUPPORT_CHAT_WEBHOOK_URL', secret: 'SUPPORT_CHAT_WEBHOOK_SECRET' },
  escalation(settings, { fetch, timeoutMs }) {
    const s = requireSettings(settings, webhook, ['url', 'secret']);
    return createWebhookIntegration({ url: s.url, secret: s.secret, fetch, timeoutMs });
  },
};
