/** @module Templates of the hand-over to a person: the offer, the form (name, email, optional note), the ticket. */
import { html, nothing, type TemplateResult } from 'lit';
import { isPlausibleEmail, NAME_MAX_LENGTH, NOTE_MAX_LENGTH } from '../../protocol/index.js';
import type { Ticket } from '../storage.js';
import { format, type Strings } from '../strings.js';
import { lengthError, noteField } from './note.js';

/** What the visitor enters in the escalation form. */
export interface Customer {
  name: string;
  email: string;
  /** Optional, at most 2,000 characters; relayed into the ticket. */
  note: string;
}

/** The form's values, trimmed, and what is wrong with them (nothing: `errors` is empty). */
export function readForm(form: HTMLFormElement, t: Strings, lang: string): { customer: Customer; errors: EscalationView['errors'] } {
  // A field the site already knows (a signed-in visitor's) is not in the form: the proxy fills it in.
  const input = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement | null;
  const value = (name: string) => input(name)?.value.trim() ?? '';
  const customer = { name: value('name'), email: value('email'), note: value('note') };
  const errors: EscalationView['errors'] = {};
  const name = input('name') && (customer.name ? lengthError(customer.name, NAME_MAX_LENGTH, t, lang) : t.nameRequired);
  if (name) errors.name = name;
  if (input('email') && !isPlausibleEmail(customer.email)) errors.email = t.emailInvalid;
  const note = lengthError(customer.note, NOTE_MAX_LENGTH, t, lang);
  if (note) errors.note = note;
  return { customer, errors };
}

/** Where the escalation request stands: not under way, sent, or the ticket being created (the proxy said so). */
export type EscalationProgress = 'idle' | 'submitting' | 'creating';

export interface EscalationView {
  /** Prefix of the element ids, unique per widget. */
  id: string;
  t: Strings;
  errors: { name?: string; email?: string; note?: string };
  progress: EscalationProgress;
  onSubmit(event: Event): void;
  onCancel(): void;
  /** What the site knows of a signed-in visitor: those fields are not asked. */
  known?: { name?: string; email?: string } | null;
}

// No `maxlength`: browsers count it in UTF-16 units, the API in characters; `readForm` checks the bound.
function field(v: EscalationView, name: 'name' | 'email', label: string, attrs: { type: string; autocomplete: string }): TemplateResult {
  const error = v.errors[name];
  const id = `${v.id}-${name}`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input
      id=${id}
      name=${name}
      type=${attrs.type}
      autocomplete=${attrs.autocomplete}
      required
      aria-invalid=${error ? 'true' : 'false'}
      aria-describedby=${error ? `${id}-error` : nothing}
    />
    ${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : nothing}
  </div>`;
}

/** The form, shown at the end of the conversation (which stays readable above it). One primary button. */
export function escalationForm(v: EscalationView): TemplateResult {
  const t = v.t;
  return html`<form class="escalation-form" part="escalation-form" novalidate aria-labelledby="${v.id}-escalate" @submit=${v.onSubmit}>
    <p id="${v.id}-escalate">${v.known?.email ? format(t.escalateKnown, { email: v.known.email }) : t.escalateIntro}</p>
    ${v.known?.name ? nothing : field(v, 'name', t.name, { type: 'text', autocomplete: 'name' })}
    ${v.known?.email ? nothing : field(v, 'email', t.email, { type: 'email', autocomplete: 'email' })}
    ${noteField(`${v.id}-note`, 'note', t, v.errors.note)}
    ${v.progress === 'creating' ? html`<p class="caption" role="status">${t.creatingTicket}</p>` : nothing}
    <div class="actions">
      <button type="button" class="secondary" @click=${v.onCancel}>${t.cancel}</button>
      <button type="submit" class="primary" ?disabled=${v.progress !== 'idle'}>${v.progress === 'creating' ? t.creatingTicket : v.progress === 'submitting' ? t.submitting : t.submit}</button>
    </div>
  </form>`;
}

/**
 * The area above the composer, the one place the offer to talk to a human lives (from the first
 * exchange on, while the answer is still coming too), or the ticket once there is one. `shown` is
 * false while the form is open or before the first message; `urged` when the last reply found no
 * direct answer: the same offer, drawn as the primary action rather than a second button in the reply.
 */
export function escalationArea(
  t: Strings,
  escalation: Ticket | 'already' | null,
  offer: { shown: boolean; urged: boolean },
  onOffer: () => void,
): TemplateResult | typeof nothing {
  if (escalation) return html`<div class="escalation" part="escalation">${ticket(t, escalation)}</div>`;
  if (!offer.shown) return nothing;
  return html`<div class="escalation" part="escalation">
    <button type="button" class="${offer.urged ? 'primary' : 'secondary'} offer" part="talk-to-human" @click=${onOffer}>${t.talkToHuman}</button>
  </div>`;
}

/** What the visitor is told once the team has the conversation: a reply by email only when the integration sends one. */
export const ticketCreated = (t: Strings, escalation: Ticket) => (escalation.byEmail ? t.ticketCreatedEmail : t.ticketCreated);

/** The outcome: the ticket with its link, or "already with the team". Focusable, so focus can move to it. */
export function ticket(t: Strings, escalation: Ticket | 'already'): TemplateResult {
  if (escalation === 'already') return html`<p class="ticket" part="ticket" tabindex="-1">${t.alreadyEscalated}</p>`;
  const label = format(t.ticketLink, { id: escalation.ticketId });
  return html`<div class="ticket" part="ticket" tabindex="-1">
    <p>${ticketCreated(t, escalation)}</p>
    ${escalation.ticketUrl ? html`<a href=${escalation.ticketUrl} target="_blank" rel="noopener noreferrer">${label}</a>` : html`<span>${label}</span>`}
  </div>`;
}
