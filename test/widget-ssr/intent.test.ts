/** Asking for a person opens the escalation form; asking *about* people is a question for the docs. */
import { describe, expect, it } from 'vitest';
import { asksForHuman } from '../../src/widget/intent.js';

const requests: Record<string, string[]> = {
  en: [
    'Can I talk to someone?',
    'can i talk to someone',
    'human please',
    'Human',
    'agent',
    'A real person!',
    'Hi, can I speak with a human?',
    'I want to talk to a human',
    "I'd like to speak to your support team",
    'Talk to a human',
    'Get me a real person',
    'Connect me with an agent please',
    'I need a human now',
    'Can I talk to a human about my invoice?',
    'Let me chat with your team',
    'Contact support please',
  ],
  es: ['¿Puedo hablar con una persona?', 'Quiero hablar con un agente', 'un humano, por favor', 'Necesito un agente', 'Pásame con alguien del equipo', 'Agente'],
  fr: ['Je voudrais parler à un humain', 'Puis-je parler à quelqu’un ?', 'un conseiller svp', 'Humain', 'Passez-moi un agent', 'Je veux un conseiller'],
  ar: ['أريد التحدث مع إنسان', 'موظف من فضلك', 'هل يمكنني التحدث مع شخص؟', 'أحتاج موظف'],
};

const questions: Record<string, string[]> = {
  en: [
    'What happens when a visitor wants to talk to a real person?',
    'How does the widget hand a conversation to a human?',
    'Can the widget escalate to a human agent?',
    'Which helpdesks can receive a human handoff?',
    'How do I configure escalation to Plain?',
    'I need support for SSO in the proxy',
    'Does the agent see the transcript?',
    'How do I reset my password?',
    'What does the customer service integration send?',
  ],
  es: ['¿Qué pasa cuando un visitante quiere hablar con una persona?', '¿Cómo funciona la escalada a un agente?'],
  fr: ['Que se passe-t-il quand un visiteur veut parler à un humain ?', 'Comment configurer le transfert vers un conseiller ?'],
  ar: ['ماذا يحدث عندما يريد الزائر التحدث مع إنسان؟', 'كيف أضبط التصعيد إلى موظف؟'],
};

describe('asksForHuman', () => {
  for (const [lang, phrases] of Object.entries(requests)) {
    it(`opens the form on a request for a person (${lang})`, () => {
      for (const phrase of phrases) expect(asksForHuman(phrase), phrase).toBe(true);
    });
  }
  for (const [lang, phrases] of Object.entries(questions)) {
    it(`leaves a question about people, or another question, to the docs (${lang})`, () => {
      for (const phrase of phrases) expect(asksForHuman(phrase), phrase).toBe(false);
    });
  }

  it('stays fast on the worst messages it reads (200 characters of what the patterns repeat)', () => {
    const worst = ['hi, '.repeat(50), 'hola, '.repeat(33), 'can i talk to '.repeat(14), 'a '.repeat(100), `${'مرحبا، '.repeat(28)}x`, `${' '.repeat(199)}x`, `i want ${'a real person '.repeat(14)}x`];
    for (const text of worst) {
      const started = performance.now();
      for (let i = 0; i < 100; i++) asksForHuman(text.slice(0, 200));
      expect(performance.now() - started, JSON.stringify(text.slice(0, 20))).toBeLessThan(200);
    }
  });
});
