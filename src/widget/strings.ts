/** @module The widget's text: its keys, the built-in languages by code, and the language for a tag; `strings` overrides any of it. */

export interface Strings {
  heading: string;
  launcherLabel: string;
  close: string;
  placeholder: string;
  inputLabel: string;
  send: string;
  welcome: string;
  you: string;
  assistant: string;
  working: string;
  answerReady: string;
  failed: string;
  sources: string;
  copy: string;
  copied: string;
  image: string;
  talkToHuman: string;
  escalateIntro: string;
  name: string;
  email: string;
  submit: string;
  submitting: string;
  cancel: string;
  nameRequired: string;
  emailInvalid: string;
  /** The escalation's confirmation when the integration does not email the visitor (a webhook, an issue tracker). */
  ticketCreated: string;
  ticketLink: string;
  alreadyEscalated: string;
  newConversation: string;
  retry: string;
  offline: string;
  errorNetwork: string;
  errorRateLimited: string;
  errorTimeout: string;
  errorGeneric: string;
  errorInput: string;
  /** The empty state's greeting, above the starter questions. */
  greeting: string;
  /** Shown when the text is over the limit: {count} and {max}. */
  tooLong: string;
  /** The character counter near the limit: {count} of {max}. */
  counter: string;
  /** Under a message waiting for the current answer. */
  queued: string;
  /** Under a message waiting for the browser to be online. */
  queuedOffline: string;
  /** The escalation form's optional note. */
  note: string;
  /** While the ticket is being created (the proxy answers 409 retryable). */
  creatingTicket: string;
  /** Under a message sent after the conversation went to the team. */
  alsoSent: string;
  /** The "Copy answer" action, and its done state. */
  copyAnswer: string;
  copiedAnswer: string;
  /** The thumbs under an answer (the comment offered after "not helpful" is labelled `note`). */
  helpful: string;
  notHelpful: string;
  /** A code block's label; {lang} is its language. */
  codeIn: string;
  /** A code block with no language. */
  code: string;
  /** A citation marker's label: {n} and {title}. */
  citation: string;
  /** Label of the starter questions' group. */
  starters: string;
  /** Above the related pages of a reply that found no direct answer (not "Sources": nothing was answered from them). */
  related: string;
  /** Said to screen readers (and before the reply's text) when a reply found no direct answer but related pages. */
  notSure: string;
  /** Said to screen readers (and before the reply's text) when nothing related was found. */
  nothingFound: string;
  /**
   * Shown when the proxy wants a signed-in visitor and there is none (401: the site requires one,
   * or the visitor token was refused again after a fresh one): put the app's own sign-in message here.
   */
  signIn: string;
  /** Label of a signed-in visitor's recent conversations in the empty state. */
  recent: string;
  /** The escalation form's intro for a visitor the site knows by email: {email}. */
  escalateKnown: string;
  /** The escalation's confirmation when the integration replies by email (Plain, Pylon). */
  ticketCreatedEmail: string;
  /** The search field's label and placeholder (also the results list's label). */
  search: string;
  /** The first row of the search results, which asks the query in chat: {query}. */
  askAi: string;
  /** A search that found nothing: {query}. */
  searchEmpty: string;
  /** A search that failed, before the reason. */
  searchFailed: string;
  /** While a search is under way (shown and announced once it takes a moment). */
  searching: string;
}

/** The languages by code: English, then each built-in one once `locales.ts` has loaded it (see there). */
export const LOCALES: Record<string, Strings> = {};
/** The languages `locales.ts` can load. */
export const BUILT_IN = ['en', 'es', 'fr', 'ar'];
const RTL = new Set(['ar', 'he', 'fa', 'ur']);

/** The language for a tag (exact, then primary subtag, then English) and its strings: English until a built-in one is loaded. */
export function localeFor(lang: string | null | undefined): { code: string; strings: Strings; dir: 'ltr' | 'rtl' } {
  const tag = (lang ?? '').toLowerCase();
  const primary = tag.split('-')[0] ?? '';
  const known = (c: string) => c in LOCALES || BUILT_IN.includes(c);
  const code = known(tag) ? tag : known(primary) ? primary : 'en';
  return { code, strings: LOCALES[code] ?? LOCALES['en']!, dir: RTL.has(code) ? 'rtl' : 'ltr' };
}

export function format(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, key: string) => values[key] ?? m);
}
