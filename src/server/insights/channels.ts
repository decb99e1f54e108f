/**
 * @module Where a question was asked (component `insights-channel`): `chat` (the API's `POST /v0/chat`:
 * the widget, the proxy, any client) or `mcp` (the MCP tool `ask`), kept on the conversation so
 * the insights report can tell them apart (`Channel`, in store/conversations.ts).
 */
import type { Migration } from '../store/migrate.js';

export const channelMigrations: Migration[] = [
  {
    component: 'insights-channel',
    version: 1,
    description: 'where each conversation was started: chat, or the MCP tool ask',
    up: `
      ALTER TABLE conversations ADD COLUMN channel TEXT NOT NULL DEFAULT 'chat' CHECK (channel IN ('chat', 'mcp'));
      -- The report counts one channel's questions of a period from its conversations.
      CREATE INDEX conversations_org_channel ON conversations (org_id, channel, created_at);
    `,
  },
];
