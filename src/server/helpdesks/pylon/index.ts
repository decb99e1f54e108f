/** @module The Pylon helpdesk: REST client and escalation, issue sync, signed webhooks. */
import { requireSettings } from '../settings.js';
import type { Helpdesk } from '../types.js';
import { createPylonIntegration, PylonClient } from './client.js';
import { pylonConnector } from './sync.js';
import { pylonWebhook } from './webhook.js';

export { createPylonIntegration, PylonClient, PYLON_API_URL, PYLON_PRIORITIES, type PylonIssue } from './client.js';
export { pylonConnector, pylonTicket } from './sync.js';

export const pylon: Helpdesk = {
  name: 'pylon',
  label: 'Pylon',
  settings: { apiKey: 'PYLON_API_KEY', apiUrl: 'PYLON_API_URL', webhookSecret: 'PYLON_WEBHOOK_SECRET' },
  escalation(settings, { fetch, timeoutMs, firstAttempt }) {
    const s = requireSettings(settings, pylon, ['apiKey']);
    return createPylonIntegration({ apiKey: s.apiKey, apiUrl: s.apiUrl, fetch, timeoutMs, firstAttempt });
  },
  sync(settings, options) {
    const s = requireSettings(settings, pylon, ['apiKey']);
    return pylonConnector(new PylonClient({ apiKey: s.apiKey, apiUrl: s.apiUrl, ...options }));
  },
  webhook: pylonWebhook,
};
