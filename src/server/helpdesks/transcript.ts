/** @module The conversation as a helpdesk ticket shows it: Markdown, escaped HTML, and size-bounded pieces. */
import type { Message } from '../../protocol/index.js';
import type { TicketDraft } from './types.js';

const SPEAKER: Record<string, string> = { user: 'Visitor', assistant: 'Assistant' };

function speaker(message: Message): string {
  return SPEAKER[message.role] ?? message.role;
}

/** One message as Markdown: speaker, text, and the sources it cited. */
export function messageMarkdown(message: Message): string {
  const lines = [`**${speaker(message)}:**`, message.content.trim()];
  if (message.sources.length > 0) {
    lines.push('', 'Sources:', ...message.sources.map((s) => `- [${escapeMarkdownLabel(s.title)}](${s.url})`));
  }
  return lines.join('\n');
}

/**
 * Ticket description for Markdown helpdesks (Linear): summary, the visitor's note, then the
 * transcript. Only the speaker labels and headings are ours: every message is a block quote
 * under its label, and whatever the visitor wrote (messages, name, email, note) is escaped, so no
 * text of theirs can make a `**Assistant:**` line, a heading, a link or HTML.
 */
export function ticketMarkdown(draft: TicketDraft): string {
  const name = escapeMarkdown(oneLine(draft.customer.name));
  return [
    '## Summary',
    '',
    quoted(escapeMarkdown(draft.summary.trim())),
    '',
    ...(draft.note ? [`## Note from ${name}`, '', quoted(escapeMarkdown(draft.note.trim())), ''] : []),
    '## Conversation',
    '',
    draft.transcript.map(quotedMessageMarkdown).join('\n\n'),
    '',
    '---',
    `Escalated from support chat by ${name} \\<${escapeMarkdown(oneLine(draft.customer.email))}\\>${verifiedNote(draft)} · conversation \`${draft.conversationId}\``,
  ].join('\n');
}

/** What a ticket says after the customer's address when the site vouched for it. */
export const VERIFIED_EMAIL_NOTE = 'email verified by the site';

/** ` (email verified by the site)` when the site vouched for the customer's email, else nothing. */
export function verifiedNote(draft: TicketDraft): string {
  return draft.customer.verified ? ` (${VERIFIED_EMAIL_NOTE})` : '';
}

/** One message under its speaker's label, quoted: the visitor's text escaped, the answer's Markdown kept inside the quote. */
function quotedMessageMarkdown(message: Message): string {
  const content = message.role === 'user' ? escapeMarkdown(message.content.trim()) : message.content.trim();
  const lines = [`**${speaker(message)}:**`, quoted(content)];
  if (message.sources.length > 0) {
    lines.push('', 'Sources:', ...message.sources.map((s) => `- [${escapeMarkdownLabel(s.title)}](<${s.url.replace(/[<>\s]/g, encodeURIComponent)}>)`));
  }
  return lines.join('\n');
}

/** A visitor's message sent after escalation, as Markdown (Linear comments): quoted and escaped like the description's. */
export function followUpMarkdown(content: string): string {
  return `**Visitor (in the support chat):**\n\n${quoted(escapeMarkdown(content.trim()))}`;
}

/**
 * Text that Markdown shows as it is: every ASCII punctuation character backslash-escaped
 * (CommonMark §2.4: each then stands for itself), so it opens no emphasis, link, heading, list,
 * code, table or HTML.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** Markdown as a block quote: every line, blank ones too, starts with `> `, so nothing inside ends the quote. */
function quoted(markdown: string): string {
  return markdown
    .split(/\r\n?|\n/)
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

/** A name or address on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** Text as HTML paragraphs: every character escaped, line breaks kept. */
function paragraphs(text: string): string {
  return text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** The end of an HTML ticket body that names its conversation; a retry finds an earlier ticket by it. */
export function conversationHtml(conversationId: string): string {
  return `conversation ${escapeHtml(conversationId)}</p>`;
}

/** Ticket body for HTML helpdesks (Pylon): everything the visitor or the engine wrote is escaped. */
export function ticketHtml(draft: TicketDraft): string {
  const messages = draft.transcript.map((m) => {
    const sources =
      m.sources.length === 0
        ? ''
        : `<ul>${m.sources
            .filter((s) => /^https?:\/\//i.test(s.url))
            .map((s) => `<li><a href="${escapeHtml(s.url)}">${escapeHtml(s.title)}</a></li>`)
            .join('')}</ul>`;
    return `<p><strong>${escapeHtml(speaker(m))}:</strong></p>${paragraphs(m.content)}${sources}`;
  });
  return [
    '<h2>Summary</h2>',
    paragraphs(draft.summary),
    ...(draft.note ? [`<h2>Note from ${escapeHtml(draft.customer.name)}</h2>`, paragraphs(draft.note)] : []),
    '<h2>Conversation</h2>',
    ...messages,
    '<hr>',
    `<p>Escalated from support chat by ${escapeHtml(draft.customer.name)} &lt;${escapeHtml(draft.customer.email)}&gt;${verifiedNote(draft)} · ${conversationHtml(draft.conversationId)}`,
  ].join('');
}

/** The end of a follow-up note that names its message; a retry finds an earlier note by it. */
export function followUpMarkerHtml(conversationId: string, seq: number): string {
  return `conversation ${escapeHtml(conversationId)} · message ${seq}</p>`;
}

/** A visitor's message sent after escalation, as escaped HTML (Pylon notes), ending with its marker. */
export function followUpHtml(content: string, conversationId: string, seq: number): string {
  return `<p><strong>Visitor (in the support chat):</strong></p>${paragraphs(content)}<p>Support chat · ${followUpMarkerHtml(conversationId, seq)}`;
}

/**
 * Splits text into pieces of at most `max` characters, preferring paragraph, then line, then
 * word boundaries, never splitting a UTF-16 surrogate pair. Empty text gives no pieces.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    let cut = rest.lastIndexOf('\n\n', max);
    if (cut < max / 2) cut = rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) {
      cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    const piece = rest.slice(0, cut).trim();
    if (piece) pieces.push(piece);
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

function escapeMarkdownLabel(text: string): string {
  return text.replace(/[[\]\\]/g, (c) => `\\${c}`);
}
