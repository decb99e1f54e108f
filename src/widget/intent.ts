/**
 * @module Whether a visitor's message asks for a person rather than an answer, in every built-in
 * language (the visitor may write in any of them, whatever the widget's language).
 *
 * A request for a person is the visitor's own: a bare "human please" or "agent", or a sentence that
 * opens with the visitor asking ("can I talk to someone", "get me a real person", "quiero hablar con
 * una persona"). A question *about* people ("What happens when a visitor wants to talk to a real
 * person?") is a question for the docs: it opens with something else, so every pattern is anchored
 * at the start of the message. Messages are at most 200 characters here, and no pattern nests a
 * quantifier over an ambiguous choice, so matching is linear and bounded.
 */

/** Words that may open a request before it starts: "hi, can I …", "ok so …". */
const LEAD_EN = String.raw`(?:(?:hi|hello|hey|ok|okay|so|well|sorry|excuse me|please)[,!.]?\s+)*`;
/** A person, in English: "a human", "your support team", "someone", "an agent". */
const PERSON_EN = String.raw`(?:(?:a|an|the|your|some|one of your|a real|an actual|a live)\s+)?(?:human(?:\s+being)?|real\s+person|actual\s+person|live\s+(?:agent|person|chat|support)|person|agent|representative|rep|operator|someone|somebody|support(?:\s+(?:agent|team|staff|person))?|customer\s+(?:service|support)(?:\s+(?:agent|rep|representative|team))?|staff|team\s+member|member\s+of\s+(?:staff|your\s+team|the\s+team)|team)\b`;

const PATTERNS: RegExp[] = [
  // English: "human please", "agent", "a real person!", "live agent now"
  new RegExp(String.raw`^${LEAD_EN}${PERSON_EN}(?:\s+(?:please|pls|now|asap))?[\s.!?]*$`),
  // English: "can I talk to someone", "I'd like to speak with a human", "talk to a human", "how do I reach a person"
  new RegExp(
    String.raw`^${LEAD_EN}(?:(?:can|could|may)\s+(?:i|we)\s+|(?:i|we)(?:'d|\s+would)\s+(?:like|prefer)\s+to\s+|(?:i|we)\s+(?:want|need|wish)\s+to\s+|let\s+me\s+|how\s+(?:can|do)\s+(?:i|we)\s+)?(?:talk|speak|chat)\s+(?:to|with)\s+${PERSON_EN}`,
  ),
  new RegExp(String.raw`^${LEAD_EN}(?:how\s+(?:can|do)\s+(?:i|we)\s+)?(?:reach|contact|get\s+hold\s+of|get\s+in\s+touch\s+with)\s+${PERSON_EN}`),
  // English: "get me a human", "connect me with an agent", "transfer me to support"
  new RegExp(String.raw`^${LEAD_EN}(?:please\s+)?(?:get|connect|put|transfer|pass|send)\s+me\s+(?:(?:to|with|through\s+to|over\s+to)\s+)?${PERSON_EN}`),
  // English: "I want a human", "I need to talk to someone", "is there a human I can talk to?"
  new RegExp(String.raw`^${LEAD_EN}(?:i|we)(?:'d|\s+would)?\s+(?:want|need|like|prefer)\s+${PERSON_EN}(?:\s+(?:please|now|to\s+(?:talk|speak|chat)\b.*))?[\s.!?]*$`),
  new RegExp(String.raw`^${LEAD_EN}is\s+there\s+(?:a|an|any)\s+(?:human|real\s+person|person|agent|someone|somebody)\s+(?:i|we)\s+(?:can|could)\s+(?:talk|speak|chat)`),
  // Spanish: "¿Puedo hablar con una persona?", "quiero un agente", "un humano, por favor"
  /^(?:(?:hola|buenas|por favor)[,!.]?\s+)*(?:un |una )?(?:humano|persona real|persona de verdad|agente|operador|operadora|representante|persona)(?:,?\s+por favor)?[\s.!?]*$/,
  /^(?:(?:hola|buenas|por favor)[,!.]?\s+)*(?:(?:puedo|podría|podria|quiero|quisiera|necesito|me gustaría|me gustaria|deseo)\s+)?(?:hablar|comunicarme|chatear)\s+con\s+(?:un|una|alguien|algún|alguna|el|la|su|tu|vuestro)\b/,
  /^(?:(?:hola|buenas|por favor)[,!.]?\s+)*(?:quiero|quisiera|necesito)\s+(?:un|una|a)\s+(?:humano|persona|agente|operador|operadora|representante)\b/,
  /^(?:(?:hola|buenas|por favor)[,!.]?\s+)*(?:pásame|pasame|comunícame|comunicame|ponme)\s+con\b/,
  // French: « Je voudrais parler à un humain », « un conseiller svp », « passez-moi un agent »
  /^(?:(?:bonjour|salut|svp|s'il vous plaît)[,!.]?\s+)*(?:un |une )?(?:humain|vraie personne|personne réelle|conseiller|conseillère|agent|opérateur|opératrice)(?:,?\s+(?:svp|stp|s'il vous plaît|s'il te plaît))?[\s.!?]*$/,
  /^(?:(?:bonjour|salut|svp|s'il vous plaît)[,!.]?\s+)*(?:(?:je\s+(?:veux|voudrais|souhaite|souhaiterais|peux|aimerais)|puis-je|est-ce que je peux|pourrais-je)\s+)?parler\s+(?:à|a|avec)\s+(?:un|une|quelqu'un|le|la|l'|votre|vos)/,
  /^(?:(?:bonjour|salut)[,!.]?\s+)*(?:je\s+(?:veux|voudrais|souhaite)\s+(?:un|une)\s+(?:humain|conseiller|conseillère|agent|personne)|(?:passez|mettez)-moi\s+(?:un|une|en relation)|pouvez-vous me mettre en relation)/,
  // Arabic: «أريد التحدث مع إنسان», «موظف من فضلك», «هل يمكنني التحدث مع شخص»
  /^(?:(?:مرحبا|مرحباً|السلام عليكم|من فضلك)[،,!.]?\s+)*(?:إنسان|انسان|موظف|شخص حقيقي|ممثل خدمة العملاء|خدمة العملاء)(?:\s+(?:من فضلك|لو سمحت))?[\s.!؟?]*$/,
  /^(?:(?:مرحبا|مرحباً|السلام عليكم|من فضلك)[،,!.]?\s+)*(?:(?:أريد|اريد|أود|اود|ممكن|هل يمكنني|هل أستطيع|أحتاج|احتاج)\s+)?(?:التحدث|التكلم|الحديث|أتحدث|اتحدث|أتكلم|اتكلم)\s+(?:مع|إلى|الى)\s/,
  /^(?:(?:مرحبا|مرحباً|السلام عليكم|من فضلك)[،,!.]?\s+)*(?:أريد|اريد|أحتاج|احتاج)\s+(?:إنسان|انسان|موظف|شخص)/,
];

/** True when `text` (a visitor's short message) asks to be put in touch with a person. */
export function asksForHuman(text: string): boolean {
  // A long message is a question that may mention people in passing; a request for a person is short.
  if (text.length > 200) return false;
  const said = text.toLowerCase().replace(/[’‘`]/g, "'").replace(/\s+/g, ' ').trim().replace(/^[¿¡]+/, '');
  return PATTERNS.some((pattern) => pattern.test(said));
}
