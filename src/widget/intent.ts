/**
 * @module Whether a visitor's message asks for a person rather than an answer, in every built-in
 * language (the visitor may write in any of them, whatever the widget's language).
 */

const PATTERNS: RegExp[] = [
  // English: "Can I talk to a human?", "real person please", "get me an agent", "customer service"
  /\b(human(?![-\w])|humans\b|real person|live (agent|person|chat|support)|(an?|the|your) (agent|representative|operator|rep)\b|someone (real|from (the |your )?(team|support))|customer (service|support) (agent|rep)|talk to (someone|somebody|a person|support))/i,
  // Spanish: "¿Puedo hablar con una persona?", "quiero un agente", "un humano"
  /(humano|persona real|persona de verdad|hablar con (una|alguna|un) (persona|agente|operador|representante)|\bagente\b|\boperador\b|alguien del equipo)/i,
  // French: « Je veux parler à un humain », « un conseiller », « une vraie personne »
  /(humain|vraie personne|personne réelle|parler à (quelqu[’']un|une personne|un agent|un conseiller)|\bconseill(er|ère)\b|\bopérat(eur|rice)\b|quelqu[’']un de l[’']équipe)/i,
  // Arabic: «أريد التحدث مع إنسان», «موظف», «شخص حقيقي»
  /(إنسان|انسان|بشري|شخص حقيقي|موظف|ممثل خدمة|خدمة العملاء|التحدث (مع|إلى) شخص)/,
];

/** True when `text` (a visitor's short message) asks to be put in touch with a person. */
export function asksForHuman(text: string): boolean {
  // A long message is a question that may mention people in passing; a request for a human is short.
  if (text.length > 200) return false;
  return PATTERNS.some((pattern) => pattern.test(text));
}
