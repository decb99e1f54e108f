/**
 * @module The classic-script build: registers `<support-chat>`, adds a launcher configured from the
 * script tag's `data-*` attributes, and replays `SupportChat(...)` calls queued before it loaded:
 * `ask`, `search`, `open`, `close`, `toggle`, `reset` (anything else is warned about in the console).
 *
 * @example
 * <script src="/support-chat.iife.js" data-endpoint="/api/support" async></script>
 * <script>window.SupportChat=window.SupportChat||function(){(SupportChat.q=SupportChat.q||[]).push(arguments)};SupportChat('ask','Hi')</script>
 */
import { SupportChat } from './support-chat.js';

const COMMANDS = ['open', 'close', 'toggle', 'reset'] as const;
type Command = (typeof COMMANDS)[number];
type Queued = { q?: ArrayLike<unknown>[] } & ((...args: unknown[]) => void);

function boot(script: HTMLScriptElement | null): void {
  const data = script?.dataset ?? {};
  let element = document.querySelector<SupportChat>('support-chat[data-auto]');
  if (!element && data.endpoint) {
    element = document.createElement('support-chat');
    element.dataset.auto = '';
    // Any attribute of the element, given on the script tag as `data-*`.
    for (const name of SupportChat.observedAttributes) {
      const key = name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
      const value = data[key];
      if (value !== undefined) element.setAttribute(name, value);
    }
    document.body.append(element);
  }
  const target = element ?? document.querySelector<SupportChat>('support-chat');
  const queued = (window as unknown as { SupportChat?: Queued }).SupportChat;
  const run = (...[command, text]: unknown[]) => {
    if (command === 'ask') void target?.ask(String(text ?? ''));
    // `search` opens the search, with the query when one is given.
    else if (command === 'search') void target?.search(text === undefined ? text : String(text));
    else if (COMMANDS.includes(command as Command)) target?.[command as Command]();
    else console.warn('SupportChat: unknown command', command);
  };
  (window as unknown as { SupportChat: unknown }).SupportChat = run;
  for (const args of Array.from(queued?.q ?? [])) run(...Array.from(args));
}

if (typeof document !== 'undefined') {
  const script = document.currentScript as HTMLScriptElement | null;
  const found = script ?? document.querySelector<HTMLScriptElement>('script[data-endpoint][src*="support-chat"]');
  if (document.body) boot(found);
  else document.addEventListener('DOMContentLoaded', () => boot(found), { once: true });
}
