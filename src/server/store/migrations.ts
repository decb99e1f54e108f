/** @module The core API's schema, as numbered migrations (component `core`). */
import type { Migration } from './migrate.js';

export const coreMigrations: Migration[] = [
  {
    component: 'core',
    version: 1,
    description: 'tokens, conversations, messages, jobs, idempotency keys',
    up: `
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        hash BLOB NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      );
      CREATE INDEX tokens_org ON tokens (org_id);

      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        escalation_state TEXT CHECK (escalation_state IN ('pending', 'done')),
        escalation_claimed_at INTEGER,
        ticket_integration TEXT,
        ticket_id TEXT,
        ticket_url TEXT
      );
      CREATE INDEX conversations_org ON conversations (org_id);

      CREATE TABLE messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        content TEXT NOT NULL,
        sources TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      );

      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        org_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until INTEGER,
        run_after INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX jobs_ready ON jobs (state, run_after);

      CREATE TABLE idempotency_keys (
        token_id TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (token_id, key)
      );
    `,
  },
  {
    component: 'core',
    version: 2,
    description: 'whether an assistant message is uncertain (related pages instead of an answer)',
    up: 'ALTER TABLE messages ADD COLUMN is_uncertain INTEGER;',
  },
  {
    component: 'core',
    version: 3,
    description: 'the conversation of each idempotency key, so deleting a conversation deletes its stored responses',
    up: `
      ALTER TABLE idempotency_keys ADD COLUMN conversation_id TEXT;
      CREATE INDEX idempotency_keys_conversation ON idempotency_keys (conversation_id);
    `,
  },
  {
    component: 'core',
    version: 4,
    description: 'where each question was asked from (the page, its title) and the text the visitor selected for it',
    up: `
      ALTER TABLE messages ADD COLUMN page_url TEXT;
      ALTER TABLE messages ADD COLUMN page_title TEXT;
      ALTER TABLE messages ADD COLUMN selection TEXT;
    `,
  },
];
