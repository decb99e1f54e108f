/** Thumbs under answers (issue 16): what reaches the proxy, pressed state, the event, the comment, reloads, axe. */
import { describe, expect, it } from 'vitest';
import { fixture, html, oneEvent, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, namespace, typeAndSend, type Mounted } from './helpers.js';

const thumbs = (m: Mounted) => m.parts('feedback') as HTMLButtonElement[];
const thumb = (m: Mounted, rating: 'up' | 'down') => thumbs(m).at(-2 + Number(rating === 'down'))!;
const feedbackLog = async (m: Mounted) => (await m.log()).filter((r) => r.path.endsWith('/feedback'));

async function answered(m: Mounted, count = 1): Promise<void> {
  await typeAndSend(m, `question ${count}`);
  await m.answered(count);
  await waitUntil(() => thumbs(m).length === 2 * count, 'no thumbs under the answer');
}

describe('feedback on answers', () => {
  it('shows thumbs only under completed answers, named in the widget language', async () => {
    const m = await mount({ answerDelayMs: 200 }, { mode: 'inline', lang: 'fr' });
    await typeAndSend(m, 'une question');
    expect(thumbs(m)).toHaveLength(0);
    await m.answered();
    await waitUntil(() => thumbs(m).length === 2);
    expect(thumbs(m).map((b) => [b.getAttribute('aria-label'), b.getAttribute('aria-pressed')])).toEqual([
      ['Utile', 'false'],
      ['Pas utile', 'false'],
    ]);
  });

  it('sends "up" to the proxy, presses the button and fires support-chat-feedback', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await answered(m);
    const event = oneEvent(document.body, 'support-chat-feedback');
    thumb(m, 'up').click();
    const { detail, bubbles, composed } = await event;
    expect({ bubbles, composed }).toEqual({ bubbles: true, composed: true });
    expect(detail).toEqual({ conversationId: expect.stringMatching(/^conv_\d+$/), messageIndex: 1, rating: 'up', comment: null });
    const [request] = await feedbackLog(m);
    expect(request!.path).toBe(`/chat/${detail.conversationId}/feedback`);
    expect(JSON.parse(request!.body)).toEqual({ rating: 'up', message_index: 1 });
    await m.el.updateComplete;
    expect(thumb(m, 'up').getAttribute('aria-pressed')).toBe('true');
    expect(thumb(m, 'down').getAttribute('aria-pressed')).toBe('false');
    // Nothing asks for a comment after "up".
    expect(m.el.shadowRoot!.querySelector('textarea[name="comment"]')).toBeNull();
  });

  it('rates the answer it sits under, not only the last one', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await answered(m, 1);
    await answered(m, 2);
    thumbs(m)[0]!.click();
    await waitUntil(() => thumbs(m)[0]!.getAttribute('aria-pressed') === 'true');
    expect(JSON.parse((await feedbackLog(m))[0]!.body)).toEqual({ rating: 'up', message_index: 1 });
    expect(thumbs(m)[2]!.getAttribute('aria-pressed')).toBe('false');
  });

  it('offers a comment after "down", refuses one over 2,000 characters, sends one within, and a later choice replaces it', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await answered(m);
    thumb(m, 'down').click();
    await waitUntil(() => m.el.shadowRoot!.querySelector('textarea[name="comment"]'), 'no comment field after "down"');
    expect(thumb(m, 'down').getAttribute('aria-pressed')).toBe('true');
    const field = m.el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea[name="comment"]')!;
    expect(field.labels![0]!.textContent).toBe('Anything to add? (optional)');
    field.value = 'x'.repeat(2001);
    field.form!.requestSubmit();
    await waitUntil(() => field.getAttribute('aria-invalid') === 'true');
    expect(m.el.shadowRoot!.querySelector('.feedback-comment .field-error')!.textContent).toContain('2,001');
    expect(await feedbackLog(m)).toHaveLength(1);

    field.value = 'It did not mention SSO.';
    const event = oneEvent(m.el, 'support-chat-feedback');
    field.form!.requestSubmit();
    expect((await event).detail).toEqual({ conversationId: expect.stringMatching(/^conv_\d+$/), messageIndex: 1, rating: 'down', comment: 'It did not mention SSO.' });
    const log = await feedbackLog(m);
    expect(log.map((r) => JSON.parse(r.body))).toEqual([
      { rating: 'down', message_index: 1 },
      { rating: 'down', comment: 'It did not mention SSO.', message_index: 1 },
    ]);
    await waitUntil(() => !m.el.shadowRoot!.querySelector('textarea[name="comment"]'));

    thumb(m, 'up').click();
    await waitUntil(() => thumb(m, 'up').getAttribute('aria-pressed') === 'true');
    expect(thumb(m, 'down').getAttribute('aria-pressed')).toBe('false');
  });

  it('keeps the choice across a reload', async () => {
    const endpoint = await namespace({ answerDelayMs: 10 });
    const first = await mount({}, { mode: 'inline', 'storage-key': 'thumbs' }, endpoint);
    await answered(first);
    thumb(first, 'down').click();
    await waitUntil(() => thumb(first, 'down').getAttribute('aria-pressed') === 'true');
    first.el.remove();
    const second = await mount({}, { mode: 'inline', 'storage-key': 'thumbs' }, endpoint);
    await waitUntil(() => thumbs(second).length === 2, 'no thumbs after the reload');
    expect(thumb(second, 'down').getAttribute('aria-pressed')).toBe('true');
    expect(thumb(second, 'up').getAttribute('aria-pressed')).toBe('false');
    second.el.reset();
  });

  it('shows an error notice when the proxy refuses the rating, and presses nothing', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await answered(m);
    await m.control({ failNext: [500] });
    const event = oneEvent(m.el, 'support-chat-error');
    thumb(m, 'up').click();
    expect((await event).detail.status).toBe(500);
    await m.el.updateComplete;
    expect(m.part('error')).not.toBeNull();
    expect(thumb(m, 'up').getAttribute('aria-pressed')).toBe('false');
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`finds no axe violation of any impact with the thumbs and the comment field shown (${theme})`, async () => {
      const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', theme });
      await answered(m);
      await expect(m.el).to.be.accessible();
      thumb(m, 'down').click();
      await waitUntil(() => m.el.shadowRoot!.querySelector('textarea[name="comment"]'));
      await expect(m.el).to.be.accessible();
      const field = m.el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea[name="comment"]')!;
      field.value = 'x'.repeat(2001);
      field.form!.requestSubmit();
      await waitUntil(() => field.getAttribute('aria-invalid') === 'true');
      await expect(m.el).to.be.accessible();
      await fixture(html`<span></span>`);
    });
  }
});

describe('the fake proxy feedback route, as the real proxy answers', () => {
  const post = async (endpoint: string, id: string, body: unknown) => {
    const response = await fetch(`${endpoint}/chat/${id}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it('is 404 for a conversation this visitor does not own, 400 in the error shape for bad input, 200 otherwise', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await answered(m);
    const id = (JSON.parse(localStorage.getItem(`support-chat:${m.endpoint}:${m.endpoint}`)!) as { conversationId: string }).conversationId;
    // Another visitor's conversations live in another namespace: unknown here.
    const other = await namespace();
    expect(await post(other, id, { rating: 'up' })).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Resource not found' } } });
    expect(await post(m.endpoint, 'conv_unknown', { rating: 'up' })).toMatchObject({ status: 404 });
    for (const [body, field] of [
      [{ rating: 'meh' }, 'rating'],
      [{ rating: 'down', comment: 'x'.repeat(2001) }, 'comment'],
      [{ rating: 'up', message_index: -1 }, 'message_index'],
      [{ rating: 'up', message_index: 0 }, 'message_index'],
    ] as const) {
      const answer = await post(m.endpoint, id, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: { code: 'bad_request', message: expect.stringContaining(`"${field}"`) } });
    }
    expect(await post(m.endpoint, id, { rating: 'down', comment: 'fine', message_index: 1 })).toEqual({ status: 200, body: { success: true } });
  });
});
