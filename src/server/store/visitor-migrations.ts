/**
 * @module The schema of conversations' visitors (component `visitors`): who each conversation
 * belongs to, so one visitor's conversations can be listed, counted and erased together.
 */
import type { Migration } from './migrate.js';

export const visitorMigrations: Migration[] = [
  {
    component: 'visitors',
    version: 1,
    description: 'the visitor a conversation belongs to',
    up: `
      ALTER TABLE conversations ADD COLUMN visitor_id TEXT;
      ALTER TABLE conversations ADD COLUMN visitor_email TEXT;
      ALTER TABLE conversations ADD COLUMN visitor_name TEXT;
      ALTER TABLE conversations ADD COLUMN visitor_verified INTEGER;
      -- One visitor's conversations, newest first; and the distinct visitors of a period.
      CREATE INDEX conversations_org_visitor ON conversations (org_id, visitor_id, updated_at);
    `,
  },
];
