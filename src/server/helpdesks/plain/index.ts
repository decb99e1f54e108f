/** @module The Plain helpdesk: GraphQL client and escalation, thread sync, signed webhooks. */
import { requireSettings } from '../settings.js';
import type { Helpdesk } from '../types.js';
import { createPlainIntegration, PlainClient } from './client.js';
import { plainConnector } from './sync.js';
import { plainWebhook } from './webhook.js';

export { createPlainIntegration, PlainClient, PLAIN_API_URL, PLAIN_COMPONENT_MAX, plainComponents, plainThreadUrl, type PlainThread } from './client.js';
export { plainConnector, plainThreadTicket, plainTicket } from './sync.js';

export const plain: Helpdesk = {
  name: 'plain',
  label: 'Plain',
  settings: { apiKey: 'PLAIN_API_KEY', apiUrl: 'PLAIN_API_URL', workspaceId: 'PLAIN_WORKSPACE_ID', webhookSecret: 'PLAIN_WEBHOOK_SECRET' },
  escalation(settings, { fetch, timeoutMs }) {
    const s = requireSettings(settings, plain, ['apiKey']);
    return createPlainIntegration({ apiKey: s.apiKey, apiUrl: s.apiUrl, workspaceId: s.workspaceId, fetch, timeoutMs });
  },
  sync(settings, options) {
    const s = requireSettings(settings, plain, ['apiKey']);
    return plainConnector(new PlainClient({ apiKey: s.apiKey, apiUrl: s.apiUrl, workspaceId: s.workspaceId, ...options }));
  },
  webhook: plainWebhook,
};
