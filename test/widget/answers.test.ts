/** How answers read, for everyone (issue 14): live region, landmarks, code, sources, citations, actions, axe. */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { fixture, html, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, typeAndSend, type Mounted } from './helpers.js';

const ANSWER = [
  'Set `SUPPORT_CHAT_LLM_BASE_URL` to your model’s address [1]. Then restart the server [2].',
  '```sh\nexport SUPPORT_CHAT_LLM_BASE_URL=https://llm.example.com/v1\n```',
].join('\n\n');
const SOURCES = [
  { title: 'llmConfigFromEnv — src/server/answers/llm.ts', url: 'https://docs.example.com/src/server/answers/llm.ts#L12' },
  {
    title: 'Running the server with a very long section title that wraps onto a second line in the panel — Getting started',
    url: 'https://docs.example.com/getting-started#running-the-server',
  },
];

const answer = (m: Mounted) => m.parts('message').filter((e) => e.dataset.role === 'assistant').at(-1)!;

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('an answer', () => {
  it('is announced as "Answer ready" with its first sentence, never code or markers', async () => {
    const m = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline' });
    await typeAndSend(m, 'How do I point it at my model?');
    await m.answered();
    await m.el.updateComplete;
    const status = m.el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!;
    expect(status.textContent).toBe('Answer ready: Set to your model’s address.');
    expect(status.textContent).not.toMatch(/SUPPORT|export|\[1\]/);
  });

  it('labels code blocks by language', async () => {
    const m = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline' });
    await typeAndSend(m, 'code?');
    await m.answered();
    const block = answer(m).querySelector<HTMLElement>('.code')!;
    expect(block.getAttribute('role')).toBe('group');
    expect(block.getAttribute('aria-label')).toBe('sh code');
    expect(block.querySelector('.lang')!.textContent).toBe('sh');
  });

  it('lists sources as numbered citations with readable titles, keeps their anchors, and links [n] markers to them', async () => {
    const m = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline' });
    m.el.style.width = '360px';
    await typeAndSend(m, 'sources?');
    await m.answered();
    await m.el.updateComplete;
    const sources = answer(m).querySelector('[part~="sources"]')!;
    expect(sources.tagName).not.toBe('NAV');
    expect(answer(m).querySelector('nav, aside, [role="navigation"], [role="region"], [role="complementary"]')).toBeNull();
    const items = [...sources.querySelectorAll('li')];
    expect(items.map((li) => li.value)).toEqual([1, 2]);
    const links = [...sources.querySelectorAll<HTMLAnchorElement>('[part~="source"]')];
    expect(links[0]!.textContent!.replace(/\s+/g, ' ').trim()).toBe('llmConfigFromEnv llm.ts');
    expect(links.map((a) => a.href)).toEqual(SOURCES.map((s) => s.url));
    // The wrapped title is one block beside its number: the number sits at its first line.
    expect(links[1]!.getClientRects()).toHaveLength(1);
    expect(links[1]!.getBoundingClientRect().height).toBeGreaterThan(30);
    expect(Math.abs(links[1]!.getBoundingClientRect().top - items[1]!.getBoundingClientRect().top)).toBeLessThan(6);
    const markers = [...answer(m).querySelectorAll<HTMLAnchorElement>('.content a.cite')];
    expect(markers.map((a) => [a.textContent, a.href, a.getAttribute('aria-label')])).toEqual([
      ['1', SOURCES[0]!.url, 'Source 1: llmConfigFromEnv'],
      ['2', SOURCES[1]!.url, 'Source 2: Running the server with a very long section title that wraps onto a second line in the panel'],
    ]);
  });

  it('offers "Copy answer", which copies the answer’s Markdown', async () => {
    const m = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline' });
    await typeAndSend(m, 'copy?');
    await m.answered();
    await m.el.updateComplete;
    let copied = '';
    const original = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard')!;
    // The browser's clipboard needs a user grant headless Chromium does not give; the widget's part is what it hands over.
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void (copied = text) } });
    try {
      const button = answer(m).querySelector<HTMLButtonElement>('[part~="copy-answer"]')!;
      expect(button.textContent!.trim()).toBe('Copy answer');
      button.click();
      await waitUntil(() => button.hasAttribute('data-copied'));
      expect(copied).toBe(ANSWER);
      expect(getComputedStyle(button, '::after').content).toBe('"Answer copied"');
    } finally {
      Object.defineProperty(navigator, 'clipboard', original);
      delete (navigator as unknown as Record<string, unknown>).clipboard;
    }
  });

  it('keeps focus in the widget when the focused control goes away (New conversation)', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'hello');
    await m.answered();
    await m.el.updateComplete;
    const reset = [...m.part('header')!.querySelectorAll('button')].find((b) => b.textContent === 'New conversation')!;
    reset.focus();
    reset.click();
    await m.el.updateComplete;
    expect(m.el.shadowRoot!.activeElement).toBe(m.part('input'));
  });
});

describe('landmarks and axe', () => {
  it('has no banner or per-answer landmarks, with two widgets and several answers on the page', async () => {
    const a = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline' });
    const b = await mount({ answerDelayMs: 10, answer: ANSWER, sources: SOURCES }, { mode: 'inline', heading: 'Billing help' });
    for (const m of [a, b]) {
      await typeAndSend(m, 'one');
      await m.answered(1);
      await typeAndSend(m, 'two');
      await m.answered(2);
    }
    expect(a.el.shadowRoot!.querySelector('header, nav, [role="banner"], [role="navigation"]')).toBeNull();
    const host = document.createElement('div');
    document.body.append(host);
    host.append(a.el, b.el);
    await expect(host).to.be.accessible();
    host.remove();
  });

  for (const viewport of [
    ['desktop', 1280, 800],
    ['phone', 375, 700],
  ] as const) {
    for (const theme of ['light', 'dark'] as const) {
      it(`finds no axe violation of any impact in any state (${theme}, ${viewport[0]})`, async () => {
        await page.viewport(viewport[1], viewport[2]);
        const m = await mount({ answerDelayMs: 300, answer: ANSWER, sources: SOURCES }, { theme });
        m.el.starters = ['How do I reset my password?', 'Where are invoices?'];
        const check = async (state: string) => {
          await m.el.updateComplete;
          try {
            await expect(m.el).to.be.accessible();
          } catch (error) {
            throw new Error(`${state}: ${(error as Error).message}`);
          }
        };
        await check('closed');
        (m.part('launcher') as HTMLButtonElement).click();
        await check('empty, with starters');
        await typeAndSend(m, 'first question');
        await typeAndSend(m, 'queued follow-up');
        await check('working, with a pending message');
        await m.answered(2);
        await check('answered');
        m.part('escalation')!.querySelector('button')!.click();
        await m.el.updateComplete;
        (m.part('escalation-form') as HTMLFormElement).requestSubmit();
        await waitUntil(() => m.part('escalation-form')!.querySelector('[aria-invalid="true"]'));
        await check('escalation form with errors');
        const form = m.part('escalation-form') as HTMLFormElement;
        (form.elements.namedItem('name') as HTMLInputElement).value = 'Ada';
        (form.elements.namedItem('email') as HTMLInputElement).value = 'ada@example.com';
        form.requestSubmit();
        await waitUntil(() => m.part('ticket'));
        await check('ticket');
        await m.control({ failNext: [500] });
        await typeAndSend(m, 'this one fails');
        await waitUntil(() => m.part('error'));
        await check('error');
        m.el.close();
        await fixture(html`<span></span>`);
      });
    }
  }
});

describe('a relative source', () => {
  it('still shows, resolved against the page (a site set up without a base URL serves its docs there)', async () => {
    const relative = [{ title: 'Billing — Account', url: 'docs/account#billing' }, { title: 'A script', url: 'javascript:alert(1)' }];
    const m = await mount({ answerDelayMs: 10, answer: 'Refunds take 14 days [1].', sources: relative }, { mode: 'inline' });
    await typeAndSend(m, 'how long do refunds take?');
    await m.answered();
    await m.el.updateComplete;
    const links = [...answer(m).querySelectorAll<HTMLAnchorElement>('[part~="source"]')];
    expect(links.map((a) => a.href)).toEqual([new URL('docs/account#billing', document.baseURI).href]);
    expect(answer(m).querySelector<HTMLAnchorElement>('a.cite')!.href).toBe(links[0]!.href);
  });
});
