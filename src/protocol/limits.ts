/** @module Bounds shared by widget, proxy and server: the spec's, and ours where it is silent (docs/server.md, "Decisions where the spec is silent"). */

export const MESSAGE_MIN_LENGTH = 1;
/** Longest `message`, in characters (code points). */
export const MESSAGE_MAX_LENGTH = 16_000;
/** Longest escalation `name`, in characters. */
export const NAME_MAX_LENGTH = 200;
/** Longest escalation `email`, in characters (RFC 5321's 64 + 1 + 255). */
export const EMAIL_MAX_LENGTH = 320;
/** Longest escalation `title`, in characters. */
export const TITLE_MAX_LENGTH = 300;
/** Longest escalation `summary`, in characters. */
export const SUMMARY_MAX_LENGTH = 20_000;
/** Most `additional_fields.label_type_ids` of one escalation. */
export const LABEL_TYPE_IDS_MAX_ITEMS = 50;
/** Longest label type id, in characters. */
export const LABEL_TYPE_ID_MAX_LENGTH = 200;
/** Highest (least urgent) `additional_fields.priority`: 0 urgent … 3 low. */
export const PRIORITY_MAX = 3;
/** Longest conversation id. */
export const CONVERSATION_ID_MAX_LENGTH = 128;
/** The shape of a conversation id (a JSON Schema `pattern` and a JavaScript RegExp alike). */
export const CONVERSATION_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
/** Longest escalation `note` (the visitor's words to the support team), in characters. */
export const NOTE_MAX_LENGTH = 2_000;
/**
 * Turns (a visitor message and its answer) one conversation may hold; the next message is refused
 * with 409 `conflict` and the visitor starts a new conversation.
 */
export const CONVERSATION_MAX_TURNS = 20;
/**
 * Largest request body any endpoint reads, in bytes: room for the longest message written the
 * longest way JSON allows (16,000 characters outside the BMP, each `\uXXXX\uXXXX`, 12 bytes: 192,000).
 */
export const MAX_BODY_BYTES = 256 * 1024;
/** Most conversations one `GET /v0/chat?visitor_id=…` answers (`limit`), and how many without one. */
export const CONVERSATION_LIST_LIMIT_MAX = 100;
export const CONVERSATION_LIST_LIMIT_DEFAULT = 20;
/** The shape of an `Idempotency-Key`: 1 to 255 visible ASCII characters (a JSON Schema `pattern` and RegExp source alike). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
/**
 * The shape of a helpdesk's name (`integration`): lowercase letters, digits and dashes. Which names
 * exist is the server's helpdesk registry's to say (plain, pylon, linear, webhook, and any added).
 */
export const HELPDESK_NAME_PATTERN = '^[a-z][a-z0-9-]{0,63}$';
const HELPDESK_NAME = new RegExp(HELPDESK_NAME_PATTERN);

/** Whether `value` has the shape of a helpdesk's name (see `HELPDESK_NAME_PATTERN`). */
export function isHelpdeskName(value: string): boolean {
  return HELPDESK_NAME.test(value);
}
/** Longest `Prefer: wait=N` honoured, in seconds. */
export const MAX_PREFER_WAIT_SECONDS = 20;

/** A plausible email (one `@`, something before it, a dot in the domain, no spaces), as a JSON Schema `pattern` and RegExp source. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';

/** Longest comment kept with a rating of an answer (`POST /v0/chat/{id}/feedback`). */
export const FEEDBACK_COMMENT_MAX_LENGTH = 2000;

/** Longest search query (`q` of `GET /v0/search`), in characters (code points) after trimming. */
export const SEARCH_QUERY_MAX_LENGTH = 500;
/** Most results one search answers (`limit`), and how many it answers by default. */
export const SEARCH_LIMIT_MAX = 20;
export const SEARCH_LIMIT_DEFAULT = 8;
/** Most results of one page in a search's answer. */
export const SEARCH_RESULTS_PER_PAGE = 3;
/** Longest search excerpt, in characters (code points). */
export const SEARCH_EXCERPT_MAX_LENGTH = 300;
/** Longest `page_url` (where the visitor is: search's parameter and chat's `context.page_url`), in characters. */
export const PAGE_URL_MAX_LENGTH = 2_000;
/** Longest `context.page_title`, in characters (code points). */
export const PAGE_TITLE_MAX_LENGTH = 300;
/** Longest `context.selection` (text the visitor selected on the page, for one question), in characters (code points). */
export const SELECTION_MAX_LENGTH = 1_000;
