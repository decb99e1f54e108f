/**
 * @module The schema of answer feedback, retention settings, and the derived rows the insights report
 * reads (component `insights`). `insight_questions` holds one compact row per question, kept by
 * triggers as messages arrive, so the report scans one covering index instead of joining every
 * message; it goes with its conversation (`ON DELETE CASCADE`) like everything else derived from it.
 * SQLite and PostgreSQL share the tables; the triggers are written in each engine's language.
 */
import { forPostgres, type Migration } from '../store/migrate.js';

/** Feedback, retention settings and the indexes the report and the sweep read: the same on both engines. */
const TABLES = `
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
      CREATE INDEX feedback_org_rating ON feedback (org_id, rating, updated_at);

      CREATE TABLE retention_settings (
        org_id TEXT PRIMARY KEY,
        days INTEGER NOT NULL CHECK (days >= 1),
        updated_at TEXT NOT NULL
      );

      -- The retention sweep finds expired conversations by (org_id, updated_at); the report counts
      -- conversations and escalations from the same index without reading the table.
      CREATE INDEX conversations_org_updated ON conversations (org_id, updated_at, created_at, escalation_state, id);
      -- Conversations started per day: a count over a range of this index.
      CREATE INDEX conversations_org_created ON conversations (org_id, created_at);
      -- Deleting a conversation cascades to its jobs: without this index each deletion scans every job.
      CREATE INDEX jobs_conversation ON jobs (conversation_id);
`;

/**
 * One row per question, with the covering index the report scans: the same on both engines, but
 * on SQLite without a rowid (`options`: ' WITHOUT ROWID'), its primary key being the row.
 */
const questionsTable = (options: string) => `
      CREATE TABLE insight_questions (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        org_id TEXT NOT NULL,
        asked_at TEXT NOT NULL,
        outcome TEXT NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'answered', 'unanswered', 'failed', 'escalated')),
        source_list INTEGER,
        PRIMARY KEY (conversation_id, seq)
      )${options};
      CREATE INDEX insight_questions_org_outcome ON insight_questions (org_id, outcome, asked_at, conversation_id, seq, source_list);
`;

/** Conversations from before the migration that a human took over: the question each ended on counts as escalated (both engines). */
const ESCALATED_BEFORE = `
      UPDATE insight_questions SET outcome = 'escalated'
      WHERE seq = (SELECT MAX(seq) FROM insight_questions q WHERE q.conversation_id = insight_questions.conversation_id)
        AND conversation_id IN (SELECT id FROM conversations WHERE escalation_state = 'done');
`;

/** The pages questions come from: only questions asked from a page are indexed, with what the report counts of them. */
const QUESTION_PAGES_INDEX = `
      CREATE INDEX insight_questions_org_page ON insight_questions (org_id, asked_at, page_url, outcome, page_title) WHERE page_url IS NOT NULL;
`;

export const insightsMigrations: Migration[] = [
  {
    component: 'insights',
    version: 1,
    description: 'answer feedback, per-organization retention, question outcomes for the insights report',
    up: {
      sqlite: `
${TABLES}
      -- Each distinct list of sources an answer cited, stored once (answers to similar questions cite the same sections).
      CREATE TABLE insight_source_lists (id INTEGER PRIMARY KEY, sources TEXT NOT NULL UNIQUE);

${questionsTable(' WITHOUT ROWID')}

      CREATE TRIGGER insight_question_asked AFTER INSERT ON messages WHEN NEW.role = 'user'
      BEGIN
        INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at)
        SELECT NEW.conversation_id, NEW.seq, org_id, NEW.created_at FROM conversations WHERE id = NEW.conversation_id;
      END;

      CREATE TRIGGER insight_question_answered AFTER INSERT ON messages WHEN NEW.role = 'assistant'
      BEGIN
        INSERT OR IGNORE INTO insight_source_lists (sources) SELECT NEW.sources WHERE NEW.sources != '[]';
        UPDATE insight_questions
        SET outcome = CASE WHEN NEW.sources = '[]' THEN 'unanswered' ELSE 'answered' END,
            source_list = (SELECT id FROM insight_source_lists WHERE sources = NEW.sources)
        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq - 1;
      END;

      CREATE TRIGGER insight_question_failed AFTER UPDATE OF status ON conversations WHEN NEW.status = 'failed'
      BEGIN
        UPDATE insight_questions SET outcome = 'failed' WHERE conversation_id = NEW.id AND outcome = 'pending';
      END;

      -- A human took over: the question the conversation ended on counts as escalated.
      CREATE TRIGGER insight_question_escalated AFTER UPDATE OF escalation_state ON conversations
      WHEN NEW.escalation_state = 'done' AND OLD.escalation_state IS NOT 'done'
      BEGIN
        UPDATE insight_questions SET outcome = 'escalated'
        WHERE conversation_id = NEW.id AND seq = (SELECT MAX(seq) FROM insight_questions WHERE conversation_id = NEW.id);
      END;

      -- Conversations from before this migration.
      INSERT OR IGNORE INTO insight_source_lists (sources) SELECT DISTINCT sources FROM messages WHERE role = 'assistant' AND sources != '[]';
      INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at, outcome, source_list)
      SELECT u.conversation_id, u.seq, c.org_id, u.created_at,
             CASE WHEN a.sources IS NULL THEN (CASE WHEN c.status = 'failed' THEN 'failed' ELSE 'pending' END)
                  WHEN a.sources = '[]' THEN 'unanswered' ELSE 'answered' END,
             (SELECT id FROM insight_source_lists WHERE sources = a.sources)
      FROM messages u
      JOIN conversations c ON c.id = u.conversation_id
      LEFT JOIN messages a ON a.conversation_id = u.conversation_id AND a.seq = u.seq + 1
      WHERE u.role = 'user';
${ESCALATED_BEFORE}
    `,
      postgres: `
${forPostgres(TABLES)}
      -- Unique by a digest of the list: a B-tree entry holds at most about 2.7 KB, a list of sources may not fit.
      CREATE TABLE insight_source_lists (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, sources TEXT NOT NULL);
      CREATE UNIQUE INDEX insight_source_lists_sources ON insight_source_lists (md5(sources));

${forPostgres(questionsTable(''))}

      CREATE FUNCTION insight_question_asked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at)
        SELECT NEW.conversation_id, NEW.seq, org_id, NEW.created_at FROM conversations WHERE id = NEW.conversation_id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER insight_question_asked AFTER INSERT ON messages
      FOR EACH ROW WHEN (NEW.role = 'user') EXECUTE FUNCTION insight_question_asked();

      CREATE FUNCTION insight_question_answered() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        list BIGINT;
      BEGIN
        IF NEW.sources <> '[]' THEN
          INSERT INTO insight_source_lists (sources) VALUES (NEW.sources) ON CONFLICT DO NOTHING;
          SELECT id INTO list FROM insight_source_lists WHERE md5(sources) = md5(NEW.sources) AND sources = NEW.sources;
        END IF;
        UPDATE insight_questions
        SET outcome = CASE WHEN NEW.sources = '[]' THEN 'unanswered' ELSE 'answered' END, source_list = list
        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq - 1;
        RETURN NULL;
      END $$;
      CREATE TRIGGER insight_question_answered AFTER INSERT ON messages
      FOR EACH ROW WHEN (NEW.role = 'assistant') EXECUTE FUNCTION insight_question_answered();

      CREATE FUNCTION insight_question_failed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE insight_questions SET outcome = 'failed' WHERE conversation_id = NEW.id AND outcome = 'pending';
        RETURN NULL;
      END $$;
      CREATE TRIGGER insight_question_failed AFTER UPDATE OF status ON conversations
      FOR EACH ROW WHEN (NEW.status = 'failed') EXECUTE FUNCTION insight_question_failed();

      -- A human took over: the question the conversation ended on counts as escalated.
      CREATE FUNCTION insight_question_escalated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE insight_questions SET outcome = 'escalated'
        WHERE conversation_id = NEW.id AND seq = (SELECT MAX(seq) FROM insight_questions WHERE conversation_id = NEW.id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER insight_question_escalated AFTER UPDATE OF escalation_state ON conversations
      FOR EACH ROW WHEN (NEW.escalation_state = 'done' AND OLD.escalation_state IS DISTINCT FROM 'done') EXECUTE FUNCTION insight_question_escalated();


      -- Conversations from before this migration.
      INSERT INTO insight_source_lists (sources) SELECT DISTINCT sources FROM messages WHERE role = 'assistant' AND sources <> '[]' ON CONFLICT DO NOTHING;
      INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at, outcome, source_list)
      SELECT u.conversation_id, u.seq, c.org_id, u.created_at,
             CASE WHEN a.sources IS NULL THEN (CASE WHEN c.status = 'failed' THEN 'failed' ELSE 'pending' END)
                  WHEN a.sources = '[]' THEN 'unanswered' ELSE 'answered' END,
             (SELECT id FROM insight_source_lists WHERE md5(sources) = md5(a.sources) AND sources = a.sources)
      FROM messages u
      JOIN conversations c ON c.id = u.conversation_id
      LEFT JOIN messages a ON a.conversation_id = u.conversation_id AND a.seq = u.seq + 1
      WHERE u.role = 'user';
${ESCALATED_BEFORE}
    `,
    },
  },
  {
    component: 'insights',
    version: 2,
    description: 'an uncertain answer (related pages, or nothing related) counts as unanswered, keeping the related pages it showed',
    up: {
      sqlite: `
      DROP TRIGGER insight_question_answered;
      CREATE TRIGGER insight_question_answered AFTER INSERT ON messages WHEN NEW.role = 'assistant'
      BEGIN
        INSERT OR IGNORE INTO insight_source_lists (sources) SELECT NEW.sources WHERE NEW.sources != '[]';
        UPDATE insight_questions
        SET outcome = CASE WHEN NEW.sources = '[]' OR NEW.is_uncertain = 1 THEN 'unanswered' ELSE 'answered' END,
            source_list = (SELECT id FROM insight_source_lists WHERE sources = NEW.sources)
        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq - 1;
      END;
    `,
      postgres: `
      CREATE OR REPLACE FUNCTION insight_question_answered() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        list BIGINT;
      BEGIN
        IF NEW.sources <> '[]' THEN
          INSERT INTO insight_source_lists (sources) VALUES (NEW.sources) ON CONFLICT DO NOTHING;
          SELECT id INTO list FROM insight_source_lists WHERE md5(sources) = md5(NEW.sources) AND sources = NEW.sources;
        END IF;
        UPDATE insight_questions
        SET outcome = CASE WHEN NEW.sources = '[]' OR NEW.is_uncertain = 1 THEN 'unanswered' ELSE 'answered' END, source_list = list
        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq - 1;
        RETURN NULL;
      END $$;
    `,
    },
  },
  {
    component: 'insights',
    version: 3,
    description: 'the page each question was asked from (its address and title), for the pages questions come from',
    up: {
      sqlite: `
      ALTER TABLE insight_questions ADD COLUMN page_url TEXT;
      ALTER TABLE insight_questions ADD COLUMN page_title TEXT;
${QUESTION_PAGES_INDEX}
      DROP TRIGGER insight_question_asked;
      CREATE TRIGGER insight_question_asked AFTER INSERT ON messages WHEN NEW.role = 'user'
      BEGIN
        INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at, page_url, page_title)
        SELECT NEW.conversation_id, NEW.seq, org_id, NEW.created_at, NEW.page_url, NEW.page_title FROM conversations WHERE id = NEW.conversation_id;
      END;
    `,
      postgres: `
      ALTER TABLE insight_questions ADD COLUMN page_url TEXT;
      ALTER TABLE insight_questions ADD COLUMN page_title TEXT;
${QUESTION_PAGES_INDEX}
      CREATE OR REPLACE FUNCTION insight_question_asked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO insight_questions (conversation_id, seq, org_id, asked_at, page_url, page_title)
        SELECT NEW.conversation_id, NEW.seq, org_id, NEW.created_at, NEW.page_url, NEW.page_title FROM conversations WHERE id = NEW.conversation_id;
        RETURN NULL;
      END $$;
    `,
    },
  },
];
