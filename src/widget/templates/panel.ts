/** @module Templates of the panel's parts: the empty state, a pending message, notices, the composer, the launcher. */
import { html, nothing, type TemplateResult } from 'lit';
import { MESSAGE_MAX_LENGTH } from '../../protocol/index.js';
import type { SupportChatErrorDetail } from '../events.js';
import { format, type Strings } from '../strings.js';

/** The character count shows from here on, before the limit is reached. */
export const COUNTER_FROM = MESSAGE_MAX_LENGTH - 1_000;

/** The `starters` attribute: a JSON array of strings; anything else is no starters. */
export function parseStarters(value: string | null): string[] {
  try {
    const parsed: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];
  } catch {
    return [];
  }
}

/** The panel's header: its title, "New conversation" once there is one, and Close in launcher mode. */
export function header(t: Strings, v: { headingId: string; heading: string; onReset: (() => void) | null; onClose: (() => void) | null }): TemplateResult {
  return html`<div class="header" part="header">
    <h2 id=${v.headingId}>${v.heading}</h2>
    ${v.onReset ? html`<button type="button" class="icon-button" @click=${v.onReset}>${t.newConversation}</button>` : nothing}
    ${v.onClose ? html`<button type="button" class="icon-button" aria-label=${t.close} @click=${v.onClose}>×</button>` : nothing}
  </div>`;
}

/** Where the conversation stands after its last message: an answer on its way, or a failed one. */
export function status(t: Strings, status: string): TemplateResult | typeof nothing {
  if (status === 'processing')
    return html`<div class="message working" part="message" data-role="status">
      <span class="dots" aria-hidden="true"><span></span><span></span><span></span></span>${t.working}
    </div>`;
  return status === 'failed' ? html`<p class="message" part="message" data-role="status">${t.failed}</p>` : nothing;
}

/** The empty state: a greeting, what the assistant does, and up to four starter questions. */
export function welcome(t: Strings, starters: string[], onAsk: (question: string) => void): TemplateResult {
  const shown = starters.slice(0, 4);
  return html`<div class="welcome">
    <p class="greeting">${t.greeting}</p>
    <p>${t.welcome}</p>
    ${shown.length
      ? html`<ul class="starters" aria-label=${t.starters}>
          ${shown.map((q) => html`<li><button type="button" part="starter" dir="auto" @click=${() => onAsk(q)}>${q}</button></li>`)}
        </ul>`
      : nothing}
  </div>`;
}

/** A message waiting to be sent (after the current answer, or once back online). */
export function pending(t: Strings, text: string, online: boolean): TemplateResult {
  return html`<article class="message pending" part="message pending" data-role="user" data-pending>
    <span class="visually-hidden">${t.you}:</span>
    <div class="content" dir="auto">${text}</div>
    <p class="caption">${online ? t.queued : t.queuedOffline}</p>
  </article>`;
}

/** The offline notice (one) and the error notice with its retry button. */
export function notices(t: Strings, online: boolean, notice: { detail: SupportChatErrorDetail; retry: (() => void) | null } | null): TemplateResult {
  return html`${online ? nothing : html`<p class="notice" part="offline" role="status">${t.offline}</p>`}
  ${notice
    ? html`<div class="notice error" part="error" role="alert">
        <span>${notice.detail.message}</span>
        ${notice.retry ? html`<button type="button" class="secondary" @click=${notice.retry}>${t.retry}</button>` : nothing}
      </div>`
    : nothing}`;
}

export interface ComposerView {
  id: string;
  t: Strings;
  /** Language of number formatting. */
  lang: string;
  placeholder: string;
  hidden: boolean;
  /** Why the text was not sent ('' when nothing is wrong). */
  error: string;
  draftLength: number;
  onSubmit(event: Event): void;
  onKeydown(event: KeyboardEvent): void;
  onInput(event: Event): void;
}

/** The message form: a field that grows with its text, one Send button, and a counter near the limit. */
export function composer(v: ComposerView): TemplateResult {
  const t = v.t;
  const counter = v.draftLength >= COUNTER_FROM;
  const helpId = `${v.id}-input-help`;
  return html`<form class="composer" part="composer" ?hidden=${v.hidden} @submit=${v.onSubmit}>
    <label class="visually-hidden" for="${v.id}-input">${t.inputLabel}</label>
    <textarea
      id="${v.id}-input"
      part="input"
      rows="1"
      placeholder=${v.placeholder}
      dir="auto"
      aria-invalid=${v.error ? 'true' : 'false'}
      aria-describedby=${counter || v.error ? helpId : nothing}
      @keydown=${v.onKeydown}
      @input=${v.onInput}
    ></textarea>
    <button type="submit" class="primary" part="send-button">${t.send}</button>
    ${counter || v.error
      ? html`<p class="composer-help" id=${helpId}>
          ${v.error ? html`<span class="field-error" role="alert">${v.error}</span>` : nothing}
          ${counter
            ? html`<span class="counter" part="counter" data-over=${v.draftLength > MESSAGE_MAX_LENGTH ? 'true' : 'false'}
                >${format(t.counter, { count: v.draftLength.toLocaleString(v.lang), max: MESSAGE_MAX_LENGTH.toLocaleString(v.lang) })}</span
              >`
            : nothing}
        </p>`
      : nothing}
  </form>`;
}

/** The floating button of launcher mode. */
export function launcher(t: Strings, panelId: string, opened: boolean, onToggle: () => void): TemplateResult {
  return html`<button
    type="button"
    class="launcher"
    part="launcher"
    aria-label=${opened ? t.close : t.launcherLabel}
    aria-expanded=${opened ? 'true' : 'false'}
    aria-controls=${panelId}
    @click=${onToggle}
  >
    ${opened
      ? html`<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19l5.6-5.6 5.6 5.6 1.4-1.4-5.6-5.6L19 6.4 17.6 5 12 10.6z" /></svg>`
      : html`<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2zm3 5v2h10V9H7zm0 4v2h7v-2H7z" /></svg>`}
  </button>`;
}
