/**
 * @module Whether a visitor's message asks for a person rather than an answer, in every built-in
 * language (the visitor may write in any of them, whatever the widget's language).
 *
 * A request for a person is the visitor's own: a bare "human please" or "agent", or a sentence that
 * opens with the visitor asking ("can I talk to someone", "get me a real person", "quiero hablar con
 * una persona"). A question about how visitors reach people is not one: it opens with something
 * else (what, how, which…), so every pattern is anchored at the start of the message.
 * Messages are at most 200 characters here and no pattern nests quantifiers, so matching is linear
 * and bounded. Written compactly: every byte here ships in the widget.
 */

/**
 * One pattern, anchored after an optional greeting. Its ways of asking, in order: a bare request
 * ("human please", "agent", "un humano, por favor", «موظف»); "can I talk to someone", "I'd like to
 * speak with your team"; "get me a human", "connect me with an agent"; "I need a person"; Spanish
 * ("¿Puedo hablar con una persona?", "necesito un agente", "pásame con alguien"); French (« Je
 * voudrais parler à un humain », « passez-moi un conseiller »); Arabic («أريد التحدث مع إنسان»,
 * «أحتاج موظف»).
 */
const REQUEST =
  /^(?:(?:hi|hello|hey|please|hola|bonjour)[,!.]? )?(?:(?:an? |una? )?(?:human|real person|agent|humano|persona real|agente|humain|conseill\S*|إنسان|موظف|شخص)(?:,? (?:please|now|por favor|svp|من فضلك))?[ .!?؟]*$|(?:(?:can|could|may) i |i(?:'d| would) like to |i (?:want|need) to |let me )?(?:(?:talk|speak|chat) (?:to|with)|contact|(?:get|connect) me(?: to| with)?) (?:an? |the |your )?(?:human|real|live|person|agent|someone|support|team)|i (?:want|need) an? (?:human|person|agent)|(?:(?:puedo|quiero|necesito) )?hablar con (?:una?|alguien) |(?:quiero|necesito) una? (?:humano|persona|agente)|pásame con|(?:(?:je (?:veux|voudrais|peux)|puis-je) )?parler (?:à|avec) (?:une?|quelqu'un|le|la|l')|je veux une? (?:humain|conseill|agent)|passez-moi|(?:(?:أريد|هل يمكنني|أحتاج) )?(?:التحدث|أتحدث) (?:مع|إلى)|(?:أريد|أحتاج) (?:إنسان|موظف|شخص))/;

/** True when `text` (a visitor's short message) asks to be put in touch with a person. */
export function asksForHuman(text: string): boolean {
  // A long message is a question that may mention people in passing; a request for a person is short.
  if (text.length > 200) return false;
  const said = text.toLowerCase().replace(/[’‘`]/g, "'").replace(/\s+/g, ' ').trim().replace(/^[¿¡]+/, '');
  return REQUEST.test(said);
}
