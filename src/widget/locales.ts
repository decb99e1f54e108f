/**
 * @module The built-in languages: English in the bundle, Spanish, French and Arabic each in its own
 * small module next to it (dist/locales/<code>.js), loaded by `loadLocale` when a widget first needs
 * it (2.2 KB gzipped off the bundle; English shows until the text arrives). The element's
 * registration imports this after the element, so in the bundle the text follows the code rather
 * than splitting it: gzip then finds more of the code's repeats.
 */
import { BUILT_IN, LOCALES, type Strings } from './strings.js';

/**
 * The keys of `Strings` in the order each language below lists its text, one line per key: the
 * bundle names each key once rather than once per language (about 0.3 KB gzipped).
 */
const KEYS = [
  'heading',
  'launcherLabel',
  'close',
  'placeholder',
  'inputLabel',
  'send',
  'welcome',
  'you',
  'assistant',
  'working',
  'answerReady',
  'failed',
  'sources',
  'copy',
  'copied',
  'image',
  'talkToHuman',
  'escalateIntro',
  'name',
  'email',
  'submit',
  'submitting',
  'cancel',
  'nameRequired',
  'emailInvalid',
  'ticketCreated',
  'ticketLink',
  'alreadyEscalated',
  'newConversation',
  'retry',
  'offline',
  'errorNetwork',
  'errorRateLimited',
  'errorTimeout',
  'errorGeneric',
  'errorInput',
  'greeting',
  'tooLong',
  'counter',
  'queued',
  'queuedOffline',
  'note',
  'creatingTicket',
  'alsoSent',
  'copyAnswer',
  'copiedAnswer',
  'helpful',
  'notHelpful',
  'codeIn',
  'code',
  'citation',
  'starters',
  'related',
  'notSure',
  'nothingFound',
  'signIn',
  'recent',
  'escalateKnown',
  'ticketCreatedEmail',
  'search',
  'askAi',
  'searchEmpty',
  'searchFailed',
  'searching',
] as const satisfies readonly (keyof Strings)[];

/**
 * One language's text: a line per key, in `KEYS` order (`Strings` fails to type-check if `KEYS`
 * misses a key). A tag, because minifiers keep a tagged template's line breaks as they are, where
 * they turn a plain one into a string of `\n` escapes.
 */
function lines([text]: TemplateStringsArray): Strings {
  return parse(text!);
}

function parse(text: string): Strings {
  const values = text.trim().split(/\s*\n\s*/);
  return Object.fromEntries(KEYS.map((key, i) => [key, values[i]!])) as Record<(typeof KEYS)[number], string>;
}

/** English. */
const en = lines`
  Support
  Open support chat
  Close support chat
  Ask a question…
  Your question
  Send
  Ask anything about the product. Answers come from the documentation, with links to where they came from.
  You
  Assistant
  Working on it…
  Answer ready
  Sorry, I couldn't answer that. Try asking again, or talk to a human.
  Sources
  Copy code
  Copied
  Image
  Talk to a human
  Leave your name and email, and someone from the team will follow up with this conversation.
  Name
  Email
  Send to the team
  Sending…
  Cancel
  Enter your name.
  Enter a valid email address, like name@example.com.
  Thanks! The team has your conversation.
  Ticket {id}
  This conversation is already with the team.
  New conversation
  Try again
  You're offline. The chat will continue when you're back.
  Can't reach the support service right now.
  Too many requests. Please wait a moment.
  This is taking longer than expected.
  Something went wrong.
  That message could not be sent.
  Hi! How can we help?
  Your message is {count} characters; the limit is {max}. Shorten it to send.
  {count} / {max}
  Will send when the answer is ready
  Will send when you're back online
  Anything to add? (optional)
  Creating your ticket…
  Also sent to the support team
  Copy answer
  Answer copied
  Helpful
  Not helpful
  {lang} code
  Code
  Source {n}: {title}
  Suggested questions
  Pages that may help
  Not sure: there is no direct answer, but some pages look related. You can also talk to a human.
  No answer found. You can rephrase the question, or talk to a human.
  Sign in to chat with support.
  Your recent conversations
  Someone from the team will follow up with this conversation by email at {email}.
  Thanks! The team has your conversation and will reply by email.
  Search the docs
  Ask AI: {query}
  No pages match “{query}”.
  Search failed.
  Searching…
`;

LOCALES['en'] = en satisfies Strings;

// Read while the script runs: in the classic-script build this is `document.currentScript`'s URL.
const BASE = import.meta.url;
const loading = new Map<string, Promise<void>>();

/**
 * Loads a built-in language into `LOCALES` (once; a language already there, or not built in, is
 * left alone). A failed load leaves English in its place and is not retried.
 */
export function loadLocale(code: string): Promise<void> {
  let done = loading.get(code);
  if (!done) {
    // The source as tests run it unbundled; the build emits .js and points here (scripts/emit-locales.mjs).
    const url = new URL(`locales/${code}.ts`, BASE).href;
    done = code in LOCALES || !BUILT_IN.includes(code)
      ? Promise.resolve()
      : import(/* @vite-ignore */ url).then(
          (m: { default: string }) => void (LOCALES[code] ??= parse(m.default)),
          () => undefined,
        );
    loading.set(code, done);
  }
  return done;
}
