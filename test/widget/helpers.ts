/** @module Mounting `<support-chat>` against its own namespace of the fake proxy. */
import { fixture, html, waitUntil } from '@open-wc/testing-helpers';
import { inject, vi } from 'vitest';
import '../../src/widget/support-chat.js';
import type { SupportChat } from '../../src/widget/support-chat.js';
import type { ProxyBehaviour } from '../helpers/fake-proxy.js';

let counter = 0;

export interface Mounted {
  el: SupportChat;
  endpoint: string;
  part(name: string): HTMLElement | null;
  parts(name: string): HTMLElement[];
  log(): Promise<{ method: string; path: string; prefer: string | null; body: string; key: string | null; aborted?: true }[]>;
  control(behaviour: Partial<ProxyBehaviour> & { completeNow?: boolean }): Promise<void>;
  answered(count?: number): Promise<void>;
}

export async function namespace(behaviour: Partial<ProxyBehaviour> = {}): Promise<string> {
  const endpoint = `${inject('proxyUrl')}/t/${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  await fetch(`${endpoint}/__control`, { method: 'POST', body: JSON.stringify(behaviour) });
  return endpoint;
}

export function wrap(el: SupportChat, endpoint: string): Mounted {
  const root = () => el.shadowRoot!;
  return {
    el,
    endpoint,
    part: (name) => root().querySelector<HTMLElement>(`[part~="${name}"]`),
    parts: (name) => [...root().querySelectorAll<HTMLElement>(`[part~="${name}"]`)],
    log: async () => (await fetch(`${endpoint}/__log`)).json(),
    control: async (b) => void (await fetch(`${endpoint}/__control`, { method: 'POST', body: JSON.stringify(b) })),
    answered: (count = 1) =>
      waitUntil(() => root().querySelectorAll('[part~="message"][data-role="assistant"]').length >= count, 'no answer arrived', { timeout: 8_000 }),
  };
}

/** A widget in its own namespace; `attrs` are set before it connects. */
export async function mount(behaviour: Partial<ProxyBehaviour> = {}, attrs: Record<string, string | boolean> = {}, endpoint?: string): Promise<Mounted> {
  const ep = endpoint ?? (await namespace(behaviour));
  const el = await fixture<SupportChat>(html`<support-chat endpoint=${ep} storage-key=${String(attrs['storage-key'] ?? ep)}></support-chat>`);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'storage-key') continue;
    if (value === true) el.setAttribute(name, '');
    else if (value !== false) el.setAttribute(name, value);
  }
  await el.updateComplete;
  return wrap(el, ep);
}

export async function typeAndSend(m: Mounted, text: string): Promise<void> {
  const input = m.part('input') as HTMLTextAreaElement;
  input.value = text;
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
  await m.el.updateComplete;
}

/**
 * With fake timers on: moves the widget's clock on in `stepMs` steps until `condition` holds, giving
 * the network a real moment (a round trip to the fake proxy) before each step, so responses arrive.
 */
export async function advanceUntil(m: Mounted, condition: () => unknown, message: string, { stepMs = 100, maxMs = 30_000 } = {}): Promise<void> {
  for (let waited = 0; !(await condition()); waited += stepMs) {
    if (waited > maxMs) throw new Error(`${message} (after ${maxMs} ms of the widget's time)`);
    await m.log();
    await vi.advanceTimersByTimeAsync(stepMs);
  }
}

/** With fake timers on: moves the widget's clock on by `ms` in steps, giving the network a real moment before each. */
export async function advanceBy(m: Mounted, ms: number, stepMs = 500): Promise<void> {
  for (let waited = 0; waited < ms; waited += stepMs) {
    await m.log();
    await vi.advanceTimersByTimeAsync(stepMs);
  }
}
