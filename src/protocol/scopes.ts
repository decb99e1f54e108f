/** @module The scopes of an API token: what each token may do (`support-chat-kit token create --scopes`). */

export const SCOPES = ['chat:read', 'chat:write', 'chat:escalate', 'tickets:read', 'tickets:delete', 'insights:read'] as const;
export type Scope = (typeof SCOPES)[number];
