/** A follow-up keeps its subject without an LLM: the page of the previous answer weighs in when the question points back. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../../src/protocol/index.js';
import { conversationContext, conversationPage, FOLLOW_UP_NO_ANSWER, leansBack, meaningOf } from '../../../src/server/answers/follow-up.js';
import { NO_ANSWER } from '../../../src/server/answers/compose.js';
import { openTestEngine } from '../../helpers/answer-engine.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const PAGES = {
  'reminders.md': '# Signing reminders\n\n## Reminder schedule\n\nWhen a signer has not signed yet, we email them again. By default this happens every 3 days, up to 5 times; the sender can change how often in the document settings.\n',
  'expiry.md': '# Document expiry\n\n## Expiry by default\n\n| Plan | Expires after |\n| --- | --- |\n| Free | 14 days by default |\n| Team | 30 days by default |\n\nHow often a document expires depends on the plan.\n',
  'senders.md': '# Senders\n\n## Sending a document\n\nA sender uploads a document, adds the signers and sends it. Signers get an email with a link.\n',
};

/** A test engine that ingested PAGES, as a docs site at https://docs.acme.test/. */
async function engineWithPages() {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-followup-'));
  folders.push(dir);
  for (const [name, text] of Object.entries(PAGES)) writeFileSync(join(dir, name), text);
  const engine = await openTestEngine();
  await engine.ingest('acme', [dir], { baseUrl: 'https://docs.acme.test/' });
  return engine;
}

describe('a follow-up', () => {
  it('that points back is answered from the page of the previous answer', async () => {
    const engine = await engineWithPages();
    const signal = new AbortController().signal;
    const first = 'will people who have not signed get emailed again?';
    const earlier = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: first, sources: [] }], signal });
    expect(earlier.sources[0]!.url).toContain('reminders');
    const messages: Message[] = [
      { role: 'user', content: first, sources: [] },
      { role: 'assistant', content: earlier.content, sources: earlier.sources, is_uncertain: earlier.isUncertain },
      { role: 'user', content: 'how often does it send those by default?', sources: [] },
    ];
    const followUp = await engine.answer({ orgId: 'acme', messages, signal });
    expect(followUp.sources[0]!.url).toContain('reminders');
    expect(followUp.content).toContain('every 3 days');
  });

  it('that points back is asked from the page of the previous answer: its sections go before the same words elsewhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-followup-page-'));
    folders.push(dir);
    // Two pages that say the same of their recipients: only the conversation tells which is meant.
    for (const channel of ['email', 'slack']) {
      mkdirSync(join(dir, channel));
      writeFileSync(join(dir, channel, 'reports.md'), `# ${channel} reports\n\n## Weekly reports\n\nTurn on weekly reports in the site settings.\n\n## Recipients\n\nAdd as many recipients as you like: each receives its own report.\n`);
    }
    const engine = await openTestEngine();
    await engine.ingest('acme', [dir], { baseUrl: 'https://docs.acme.test/' });
    const signal = new AbortController().signal;
    const first = 'how do i turn on weekly reports?';
    const asked = async (answeredFrom: string, question = 'can more than one person receive them?') => {
      const earlier = await engine.search('acme', first);
      const source = earlier.find((hit) => hit.section.url.includes(`/${answeredFrom}/reports#weekly-reports`))!.section;
      const messages: Message[] = [
        { role: 'user', content: first, sources: [] },
        { role: 'assistant', content: 'Turn on weekly reports in the site settings.', sources: [{ url: source.url, title: source.title }], is_uncertain: false },
        { role: 'user', content: question, sources: [] },
      ];
      return engine.answer({ orgId: 'acme', messages, signal });
    };
    expect((await asked('email')).sources[0]!.url).toMatch(/\/email\/reports#recipients$/);
    expect((await asked('slack')).sources[0]!.url).toMatch(/\/slack\/reports#recipients$/);
    // None of its own words in the docs: the sections of the turn before are no answer to it.
    expect((await asked('email', 'and later kick them out?')).isUncertain).toBe(true);
  });

  it('is asked from the page of the previous answer only when it leans back on an answer', () => {
    const vocabulary = { has: () => true, sectionsWith: () => 1, readings: (text: string) => [text], terms: (text: string) => text.toLowerCase().split(/\W+/).filter((w) => w.length > 2 && !['can', 'how', 'does', 'what'].includes(w)) };
    const page = 'https://docs.acme.test/reports/email-reports#weekly-reports';
    const conversation = (question: string, is_uncertain = false): Message[] => [
      { role: 'user', content: 'how do i set up weekly email reports?', sources: [] },
      { role: 'assistant', content: 'Enable weekly email reports…', sources: [{ url: page, title: 'Weekly reports — Email reports' }], is_uncertain },
      { role: 'user', content: question, sources: [] },
    ];
    const asked = (messages: Message[]) => conversationPage(messages, messages.at(-1)!.content, [messages[0]!.content], vocabulary);
    expect(asked(conversation('can more than one person receive them?'))).toBe(page);
    // A question with a subject of its own asks the whole knowledge base alike; related pages were a guess.
    expect(asked(conversation('how do i invite a person to my team account?'))).toBeUndefined();
    expect(asked(conversation('can more than one person receive them?', true))).toBeUndefined();
    expect(conversationPage(conversation('can more than one person receive them?').slice(2), 'can more than one person receive them?', [], vocabulary)).toBeUndefined();
  });

  it('reads a question that points back or names no subject as leaning on the conversation, and adds the previous page only then', async () => {
    const vocabulary = { has: () => true, sectionsWith: () => 1, readings: (text: string) => [text], terms: (text: string) => text.toLowerCase().split(/\W+/).filter((w) => w.length > 2 && !['how', 'does', 'what', 'about'].includes(w)) };
    expect(leansBack('how often does it send those by default?', vocabulary)).toBe(true);
    expect(leansBack('what about default?', vocabulary)).toBe(true);
    expect(leansBack('how do I change the expiry of a document?', vocabulary)).toBe(false);
    const messages: Message[] = [
      { role: 'user', content: 'reminders?', sources: [] },
      { role: 'assistant', content: 'Every 3 days.', sources: [{ title: 'Reminder schedule — Signing reminders', url: 'https://docs.acme.test/reminders' }] },
      { role: 'user', content: 'and can I change it?', sources: [] },
    ];
    expect(conversationContext(messages, 'and can I change it?', ['reminders?'], vocabulary)).toEqual(['reminders?\nReminder schedule — Signing reminders']);
    expect(conversationContext(messages, 'how do I change the expiry of a document?', ['reminders?'], vocabulary)).toEqual(['reminders?']);
    // Related pages were a guess, not a subject.
    messages[1] = { role: 'assistant', content: 'Every 3 days.', sources: messages[1]!.sources, is_uncertain: true };
    expect(conversationContext(messages, 'and can I change it?', ['reminders?'], vocabulary)).toEqual(['reminders?']);
  });

  it('that found nothing says so without asking the visitor to rephrase', async () => {
    const engine = await engineWithPages();
    const signal = new AbortController().signal;
    const alone = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'what is the weather in Paris tomorrow?', sources: [] }], signal });
    expect(alone.content).toBe(NO_ANSWER);
    const messages: Message[] = [
      { role: 'user', content: 'how often are reminders sent?', sources: [] },
      { role: 'assistant', content: 'Every 3 days.', sources: [{ title: 'Reminder schedule — Signing reminders', url: 'https://docs.acme.test/reminders#reminder-schedule' }] },
      { role: 'user', content: 'what is the weather in Paris tomorrow?', sources: [] },
    ];
    const followUp = await engine.answer({ orgId: 'acme', messages, signal });
    expect(followUp.isUncertain).toBe(true);
    expect(followUp.content).toBe(FOLLOW_UP_NO_ANSWER);
    expect(followUp.content).not.toMatch(/rephrase/);
  });

  it('that leans back is embedded with the subject of the turn before it; one that does not, alone', () => {
    const earlier = ['how do I turn on two factor'];
    const leaning = [`${earlier[0]}\nEnable 2FA — Two-factor authentication`];
    expect(meaningOf('ok and how do i switch it off again', earlier, leaning)).toBe(`ok and how do i switch it off again\n${leaning[0]}`);
    expect(meaningOf('how do I export my data?', earlier, earlier)).toBe('how do I export my data?');
    expect(meaningOf('how do I export my data?', [], [])).toBe('how do I export my data?');
  });
});
