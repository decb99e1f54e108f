/**
 * @module Template of one message: the visitor's text, an answer with its numbered sources and
 * actions, or a reply that found no direct answer, with the related pages (the offer to talk to a
 * human lives under the history, in one place: templates/escalation.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { isUncertain, type Message, type Source } from '../../protocol/index.js';
import { sourceUrl } from '../safe-url.js';
import { renderMarkdown } from '../render-markdown.js';
import type { Rating } from '../storage.js';
import { format, type Strings } from '../strings.js';
import { noteField } from './note.js';
import { thumbDown, thumbUp } from './icons.js';

export interface MessageView {
  t: Strings;
  /** Prefix of element ids, unique per widget. */
  id: string;
  /** Sent after the conversation went to the team (so it reached the ticket too). */
  alsoSent: boolean;
  /** The answer is complete (its actions show). */
  complete: boolean;
  onSourceClick(source: Source, event: MouseEvent): void;
  onCopy(text: string, button: HTMLButtonElement): void;
  /** The visitor's rating of this answer, if any. */
  rating: Rating | undefined;
  /** The optional comment field (after "not helpful") is open, and why its text was refused. */
  commenting: boolean;
  commentError: string | undefined;
  onRate(rating: Rating['rating']): void;
  onComment(event: Event): void;
}

/** Thumbs up and down (part `feedback`, pressed when chosen), then the optional comment of a "down". */
function feedback(index: number, v: MessageView): TemplateResult {
  const t = v.t;
  return html`${(['up', 'down'] as const).map(
      (r) =>
        html`<button type="button" class="text-button" part="feedback" aria-pressed=${v.rating?.rating === r ? 'true' : 'false'} aria-label=${r === 'up' ? t.helpful : t.notHelpful} @click=${() => v.onRate(r)}>
          ${r === 'up' ? thumbUp : thumbDown}
        </button>`,
    )}
    ${v.commenting
      ? html`<form class="feedback-comment" @submit=${v.onComment}>
          ${noteField(`${v.id}-comment-${index}`, 'comment', t, v.commentError)}
          <button class="secondary">${t.send}</button>
        </form>`
      : nothing}`;
}

/**
 * A source title made for people: "resetPassword — src/auth/reset.ts" reads as the name with the
 * file's name beside it, "Install — Getting started" as the section with its page.
 */
export function readableTitle(source: Source): { name: string; detail: string } {
  const title = source.title.trim();
  if (!title) {
    const url = sourceUrl(source.url);
    const path = url ? decodeURIComponent(new URL(url).pathname) : source.url;
    return { name: path.split('/').filter(Boolean).pop() ?? source.url, detail: '' };
  }
  const [name = title, ...rest] = title.split(' — ');
  let detail = rest.join(' — ');
  if (/[\\/]/.test(detail) || /\.\w{1,5}$/.test(detail)) detail = detail.split(/[\\/]/).pop() ?? detail;
  return { name, detail: detail === name ? '' : detail };
}

function sources(message: Message, index: number, v: MessageView): TemplateResult | typeof nothing {
  const listed = message.sources.map((source, i) => ({ source, n: i + 1, url: sourceUrl(source.url) })).filter((s) => s.url);
  if (!listed.length) return nothing;
  const titleId = `${v.id}-sources-${index}`;
  const link = (source: Source, url: string) => {
    const { name, detail } = readableTitle(source);
    return html`<a part="source" href=${url} target="_blank" rel="noopener noreferrer" dir="auto" @click=${(e: MouseEvent) => v.onSourceClick(source, e)}
      >${name}${detail ? html` <span class="source-detail">${detail}</span>` : nothing}</a
    >`;
  };
  // Pages that look related to a question nothing answered: not the "Sources" of an answer, and
  // not numbered, since no sentence cites them.
  if (isUncertain(message))
    return html`<div class="sources related" part="related">
      <p class="sources-title" id=${titleId}>${v.t.related}</p>
      <ul aria-labelledby=${titleId}>
        ${listed.map(({ source, url }) => html`<li>${link(source, url!)}</li>`)}
      </ul>
    </div>`;
  // Not a landmark: every answer has its sources, and a page full of "Sources" landmarks helps no one.
  return html`<div class="sources" part="sources">
    <p class="sources-title" id=${titleId}>${v.t.sources}</p>
    <ol aria-labelledby=${titleId}>
      ${listed.map(({ source, n, url }) => html`<li value=${n}>${link(source, url!)}</li>`)}
    </ol>
  </div>`;
}

/** What a screen reader hears before an assistant message: who speaks, and whether the reply is sure. */
function speaker(m: Message, t: Strings): string {
  if (m.role === 'user') return t.you;
  if (!m.is_uncertain) return t.assistant;
  return `${t.assistant} (${m.sources.length ? t.notSure : t.nothingFound})`;
}

/** An answer's Markdown as the widget renders it: its labels, its `[n]` citations of `sources` (none while it is streamed). */
export function answerMarkdown(source: string, sources: Source[], t: Strings, onCopy: MessageView['onCopy']): TemplateResult {
  const cite = (n: number) => {
    const cited = sources[n - 1];
    const href = cited && sourceUrl(cited.url);
    return href ? { href, label: format(t.citation, { n: String(n), title: readableTitle(cited).name }) } : null;
  };
  return renderMarkdown(source, {
    copyLabel: t.copy,
    copiedLabel: t.copied,
    imageLabel: t.image,
    codeLabel: (lang) => (lang ? format(t.codeIn, { lang }) : t.code),
    cite,
    onCopy: (text, button) => onCopy(text, button),
  });
}

export function message(m: Message, index: number, v: MessageView): TemplateResult {
  const t = v.t;
  const isUser = m.role === 'user';
  const content = isUser ? m.content : answerMarkdown(m.content, m.sources, t, v.onCopy);
  const uncertain = !isUser && m.is_uncertain === true;
  return html`<article class="message" part="message" data-role=${m.role} data-index=${index} data-uncertain=${uncertain ? 'true' : nothing}>
    <span class="visually-hidden">${speaker(m, t)}:</span>
    <div class="content" dir="auto">${content}</div>
    ${isUser && v.alsoSent ? html`<p class="caption">${t.alsoSent}</p>` : nothing}
    ${isUser ? nothing : sources(m, index, v)}
    ${!isUser && v.complete
      ? html`<div class="answer-actions">
          <button type="button" class="text-button" part="copy-answer" data-done=${t.copiedAnswer} @click=${(e: Event) => v.onCopy(m.content, e.currentTarget as HTMLButtonElement)}>
            <span>${t.copyAnswer}</span>
          </button>
          ${feedback(index, v)}
        </div>`
      : nothing}
  </article>`;
}
