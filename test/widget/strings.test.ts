/** @module The built-in languages list every text, line for line in the order English does. */
import { describe, expect, it } from 'vitest';
import { BUILT_IN, LOCALES } from '../../src/widget/strings.js';
import { loadLocale } from '../../src/widget/locales.js';

// Each built-in language as the widget gets it: its module loaded on demand.
await Promise.all(BUILT_IN.map(loadLocale));

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('built-in strings', () => {
  const en = LOCALES.en!;
  it('loads every built-in language', () => {
    expect(Object.keys(LOCALES).sort()).toEqual([...BUILT_IN].sort());
  });
  for (const [code, strings] of Object.entries(LOCALES)) {
    it(`${code}: has every key, each a one-line text with the placeholders English has`, () => {
      expect(Object.keys(strings)).toEqual(Object.keys(en));
      for (const [key, text] of Object.entries(strings)) {
        expect(text, `${code}.${key}`).toMatch(/^\S(.*\S)?$/);
        // A line missing or added shifts every text after it onto the wrong key: the placeholders tell.
        expect(placeholders(text), `${code}.${key}`).toEqual(placeholders(en[key as keyof typeof en]!));
      }
    });
  }

  it('keeps the texts a visitor sees', () => {
    expect(LOCALES.en!.heading).toBe('Support');
    expect(LOCALES.es!.tooLong).toBe('Tu mensaje tiene {count} caracteres; el límite es {max}. Acórtalo para enviarlo.');
    expect(LOCALES.fr!.starters).toBe('Questions suggérées');
    expect(LOCALES.ar!.starters).toBe('أسئلة مقترحة');
  });

  it('has the known-visitor texts in every language: sign in, recent conversations, and the intro naming the email', () => {
    const texts = (key: 'signIn' | 'recent' | 'escalateKnown') => Object.fromEntries(BUILT_IN.map((code) => [code, LOCALES[code]![key]]));
    expect(texts('signIn')).toEqual({
      en: 'Sign in to chat with support.',
      es: 'Inicia sesión para hablar con soporte.',
      fr: 'Connectez-vous pour discuter avec l’assistance.',
      ar: 'سجّل الدخول للتحدث مع فريق الدعم.',
    });
    expect(texts('recent')).toEqual({ en: 'Your recent conversations', es: 'Tus conversaciones recientes', fr: 'Vos conversations récentes', ar: 'محادثاتك الأخيرة' });
    for (const code of BUILT_IN) expect(LOCALES[code]!.escalateKnown, code).toContain('{email}');
  });
});
