/**
 * @module Handing the conversation to a person, as a reactive controller: the form (open, its
 * errors, where focus goes) and the request, which starts a conversation if there is
 * none yet, waits for the answer on its way, and retries while the proxy says the ticket is being
 * created (409 `retryable`, after `Retry-After`), through the protocol's `withRetries`: bounded, with
 * jitter and a cap. The form's progress (`progress`) is rendered from the request's state.
 */
import type { LitElement, ReactiveController } from 'lit';
import { ApiError } from '../client.js';
import { safeUrl } from '../safe-url.js';
import { withRetries, type AttemptOutcome } from '../../protocol/retry.js';
import type { Strings } from '../strings.js';
import { readForm, type Customer, type EscalationProgress, type EscalationView } from '../templates/escalation.js';
import type { ConversationController, Escalation } from './conversation.js';
import type { EscalationResult } from '../../protocol/index.js';

export type { Customer };

/**
 * The integrations that answer the visitor by email (helpdesks: the agent's reply reaches the
 * visitor's inbox). A webhook or an issue tracker (Linear) only hands the conversation to the team,
 * so the confirmation promises no email for them.
 */
const REPLIES_BY_EMAIL = new Set(['plain', 'pylon']);

/**
 * Retries of an escalation the proxy says is still being created: with its `Retry-After` (5 s) that
 * is two minutes, past the proxy's escalation timeout (60 s), after which the visitor is told and may retry.
 */
const IN_PROGRESS_RETRIES = 24;
/** The backoff of those retries when the proxy names no `Retry-After`, and the cap of any wait, ms. */
const IN_PROGRESS_BASE_MS = 1_000;
const IN_PROGRESS_MAX_MS = 10_000;

type Outcome = { id: string; result: EscalationResult | null };

export interface EscalationEvents {
  /** The form opened (at the end of the conversation). */
  formOpened(): void;
  /** The ticket exists, or the conversation was already with the team (`'already'`). */
  done(conversationId: string, escalation: NonNullable<Escalation>): void;
  failed(error: unknown): void;
}

export class EscalationController implements ReactiveController {
  /** The proxy said the ticket is being created: waiting for the outcome. */
  private _creating = false;
  /** The visitor's own words asking for a person: they start the conversation if there is none yet. */
  request = '';
  /** The form is open. */
  formOpen = false;
  /** What is wrong with what was entered in the form. */
  errors: EscalationView['errors'] = {};

  private readonly _host: LitElement;
  private readonly _text: () => { t: Strings; lang: string };
  private readonly _events: EscalationEvents;
  /** The latest request's number (only its outcome counts), its abort, and whether it is under way. */
  private _calls = 0;
  private _abort?: AbortController;
  private _pending = false;
  private readonly _request: (customer: Customer, fallback: string, signal: AbortSignal) => Promise<Outcome>;
  private readonly _chat: ConversationController;

  /** `text`: the widget's strings and language now. */
  constructor(host: LitElement, chat: ConversationController, text: () => { t: Strings; lang: string }, events: EscalationEvents) {
    this._host = host;
    this._text = text;
    this._events = events;
    host.addController(this);
    this._chat = chat;
    this._request = async (customer, fallback, signal) => {
      if (!chat.conversationId) await chat.send(this.request || customer.note || fallback);
      await chat.settled(signal);
      const id = chat.conversationId;
      if (!id) throw new ApiError(0, 'internal_error', 'No conversation to escalate', true, undefined);
      const attempt = async (): Promise<AttemptOutcome<Outcome>> => {
        try {
          return { retry: false, value: { id, result: await chat.client.escalate(id, customer, signal) } };
        } catch (error) {
          // 409 without `retryable`: already with the team (here, in another tab, or by a retry that got through).
          if (error instanceof ApiError && error.status === 409 && !error.retryable) return { retry: false, value: { id, result: null } };
          if (!(error instanceof ApiError && error.status === 409)) throw error;
          this._creating = true;
          this._host.requestUpdate();
          return { retry: true, error, retryAfter: error.retryAfter === undefined ? undefined : Math.max(1, error.retryAfter) };
        }
      };
      return withRetries(attempt, { retries: IN_PROGRESS_RETRIES, baseDelayMs: IN_PROGRESS_BASE_MS, maxDelayMs: IN_PROGRESS_MAX_MS, signal });
    };
  }

  /** Sends the request; a newer one aborts the one under way, whose outcome is then dropped. */
  private async _run(customer: Customer, fallback: string): Promise<void> {
    this._abort?.abort();
    const call = ++this._calls;
    const { signal } = (this._abort = new AbortController());
    this._pending = true;
    this._host.requestUpdate();
    let outcome: Outcome | undefined;
    let failure: unknown;
    try {
      outcome = await this._request(customer, fallback, signal);
    } catch (error) {
      failure = error;
    }
    if (call !== this._calls) return;
    this._pending = false;
    this._creating = false;
    if (outcome) {
      const { id, result } = outcome;
      this.request = '';
      const escalation = result ? { ticketId: result.ticket_id, ticketUrl: safeUrl(result.ticket_url) ?? '', byEmail: REPLIES_BY_EMAIL.has(result.integration) } : 'already';
      this._chat.escalated(escalation);
      this.formOpen = false;
      // The form that had focus is gone: focus moves to the outcome, inside the widget.
      this._focus('[part~="ticket"]');
      this._events.done(id, escalation);
    } else this._events.failed(failure);
    this._host.requestUpdate();
  }

  hostConnected(): void {}

  /** How the request stands, for the form. */
  get progress(): EscalationProgress {
    return this._pending ? (this._creating ? 'creating' : 'submitting') : 'idle';
  }

  /** Focuses the element matching `selector` once the host has rendered. */
  private _focus(selector: string, fallback?: () => HTMLElement | null): void {
    void this._host.updateComplete.then(() => (this._host.renderRoot.querySelector<HTMLElement>(selector) ?? fallback?.())?.focus());
  }

  /** Opens the form, focused on its first field. */
  openForm(): void {
    this.formOpen = true;
    this.errors = {};
    this._host.requestUpdate();
    this._events.formOpened();
    this._focus('.escalation-form :is(input, textarea)');
  }

  /**
   * Closes the form; focus stays in the widget, back on the offer that opened it (or on `fallback`).
   * When the visitor's own message opened it, that message goes back to them through `restore`
   * (their field), and focus with it: nothing they typed is lost.
   */
  cancelForm(fallback: () => HTMLElement | null, restore?: (text: string) => void): void {
    this.formOpen = false;
    this.errors = {};
    const typed = this.request;
    this.request = '';
    this._host.requestUpdate();
    if (typed && restore) {
      void this._host.updateComplete.then(() => {
        restore(typed);
        fallback()?.focus();
      });
    } else this._focus('.offer', fallback);
  }

  /** The form's submit: its errors (focus on the first), or the request. Says whether the request went out. */
  submitForm(event: Event): boolean {
    event.preventDefault();
    const { t, lang } = this._text();
    const { customer, errors } = readForm(event.currentTarget as HTMLFormElement, t, lang);
    this.errors = errors;
    this._host.requestUpdate();
    if (Object.keys(errors).length) {
      this._focus('.escalation-form [aria-invalid="true"]');
      return false;
    }
    // With no conversation yet and no words of the visitor's, "Talk to a human" starts it.
    void this._run(customer, t.talkToHuman);
    return true;
  }

  /** Forgets the form (a new conversation). */
  reset(): void {
    this.formOpen = false;
    this.errors = {};
  }
}
