/** @module Receivers for helpdesk webhooks (Plain, Pylon, Linear) that upsert and remove synced tickets. */
import type { Route } from '../router.js';

/** Routes authenticated by the helpdesk's signature instead of a bearer token (scope `public`). */
export const helpdeskWebhookRoutes: Route[] = [];
