/** @module The schema of answer feedback, retention settings and the indexes the insights report and the retention sweep read (component `insights`). */
import type { Migration } from '../store/database.js';

export const insightsMigrations: Migration[] = [
  {
    component: 'insights',
    version: 1,
    description: 'answer feedback, per-organization retention, conversations by organization and last activity',
    up: `
      CREATE TABLE feedback (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        message_seq INTEGER NOT NULL,
        org_id TEXT NOT NULL,
        rating TEXT NOT NULL CHECK (rating IN ('up', 'down')),
        comment TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (conversation_id, message_seq)
      );
      CREATE INDEX feedback_org_updated ON feedback (org_id, updated_at);

      CREATE TABLE retention_settings (
        org_id TEXT PRIMARY KEY,
        days INTEGER NOT NULL CHECK (days >= 1),
        updated_at TEXT NOT NULL
      );

      CREATE INDEX conversations_org_updated ON conversations (org_id, updated_at);
      -- Deleting a conversation cascades to its jobs: without this index each deletion scans every job.
      CREATE INDEX jobs_conversation ON jobs (conversation_id);
    `,
  },
];
