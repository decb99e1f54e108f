/** @module The Linear helpdesk: GraphQL client and escalation, team issue sync, signed webhooks. */
import { requireSettings } from '../settings.js';
import type { Helpdesk } from '../types.js';
import { createLinearIntegration, LinearClient } from './client.js';
import { linearConnector } from './sync.js';
import { linearWebhook } from './webhook.js';

export { createLinearIntegration, LinearClient, LINEAR_API_URL, linearCommentId, linearIssueId, linearPriority, type LinearIssue } from './client.js';
export { linearConnector, linearTicket } from './sync.js';

export const linear: Helpdesk = {
  name: 'linear',
  label: 'Linear',
  settings: { apiKey: 'LINEAR_API_KEY', apiUrl: 'LINEAR_API_URL', teamId: 'LINEAR_TEAM_ID', webhookSecret: 'LINEAR_WEBHOOK_SECRET' },
  escalation(settings, { fetch, timeoutMs }) {
    const s = requireSettings(settings, linear, ['apiKey', 'teamId']);
    return createLinearIntegration({ apiKey: s.apiKey, teamId: s.teamId, apiUrl: s.apiUrl, fetch, timeoutMs });
  },
  sync(settings, options) {
    const s = requireSettings(settings, linear, ['apiKey', 'teamId']);
    return linearConnector(new LinearClient({ apiKey: s.apiKey, apiUrl: s.apiUrl, ...options }), s.teamId);
  },
  webhook: linearWebhook,
};
