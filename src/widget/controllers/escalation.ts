/**
 * @module Handing the conversation to a person, as a reactive controller around a `@lit/task`:
 * starts a conversation if there is none yet, waits for the answer on its way, and retries while
 * the proxy says the ticket is being created (409 `retryable`, after `Retry-After`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { Task, TaskStatus } from '@lit/task';
import type { EscalationResult } from '../../protocol/index.js';
import { sleep } from '../../protocol/retry.js';
import { ApiError } from '../client.js';
import type { ConversationController } from './conversation.js';

export interface Customer {
  name: string;
  email: string;
  /** Optional, at most 2,000 characters; relayed into the ticket. */
  note: string;
}

export interface EscalationEvents {
  /** The ticket exists (`result`), or the conversation was already with the team (`result` null). */
  done(conversationId: string, result: EscalationResult | null): void;
  failed(error: unknown): void;
}

export class EscalationController implements ReactiveController {
  /** The proxy said the ticket is being created: waiting for the outcome. */
  creating = false;
  /** The visitor's own words asking for a person: they start the conversation if there is none yet. */
  request = '';

  private readonly _host: ReactiveControllerHost;
  private readonly _task: Task<readonly [Customer, string], { id: string; result: EscalationResult | null }>;

  constructor(host: ReactiveControllerHost, chat: ConversationController, events: EscalationEvents) {
    this._host = host;
    host.addController(this);
    this._task = new Task(host, {
      autoRun: false,
      task: async ([customer, fallback]: readonly [Customer, string], { signal }) => {
        if (!chat.conversationId) await chat.send(this.request || customer.note || fallback);
        await chat.settled(signal);
        const id = chat.conversationId;
        if (!id) throw new ApiError(0, 'internal_error', 'No conversation to escalate', true, undefined);
        for (;;) {
          try {
            return { id, result: await chat.client.escalate(id, customer, signal) };
          } catch (error) {
            // 409 without `retryable`: already with the team (here, in another tab, or by a retry that got through).
            if (error instanceof ApiError && error.status === 409 && !error.retryable) return { id, result: null };
            if (!(error instanceof ApiError && error.status === 409)) throw error;
            this.creating = true;
            this._host.requestUpdate();
            await sleep(Math.max(1, error.retryAfter ?? 1) * 1000, signal);
          }
        }
      },
      onComplete: ({ id, result }) => {
        this.creating = false;
        this.request = '';
        events.done(id, result);
      },
      onError: (error) => {
        this.creating = false;
        events.failed(error);
      },
    });
  }

  hostConnected(): void {}

  /** The request is under way. */
  get pending(): boolean {
    return this._task.status === TaskStatus.PENDING;
  }

  /** Escalates; `fallback` starts the conversation when there is none and the visitor gave no words. */
  submit(customer: Customer, fallback: string): void {
    void this._task.run([customer, fallback]);
  }
}
