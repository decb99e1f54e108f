/**
 * @module The built-in languages, English, Spanish, French and Arabic, added to `LOCALES`. The
 * element's registration imports this after the element, so in the bundle the text follows the
 * code rather than splitting it: gzip then finds more of the code's repeats (0.14 KB smaller).
 */
import { LOCALES, type Strings } from './strings.js';

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
] as const satisfies readonly (keyof Strings)[];

/**
 * One language's text: a line per key, in `KEYS` order (`Strings` fails to type-check if `KEYS`
 * misses a key). A tag, because minifiers keep a tagged template's line breaks as they are, where
 * they turn a plain one into a string of `\n` escapes.
 */
function lines([text]: TemplateStringsArray): Record<(typeof KEYS)[number], string> {
  const values = text!.trim().split(/\s*\n\s*/);
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
  Thanks! The team has your conversation and will reply by email.
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
`;

/** Spanish. */
const es = lines`
  Soporte
  Abrir el chat de soporte
  Cerrar el chat de soporte
  Haz una pregunta…
  Tu pregunta
  Enviar
  Pregunta lo que quieras sobre el producto. Las respuestas vienen de la documentación, con enlaces a su origen.
  Tú
  Asistente
  Trabajando en ello…
  Respuesta lista
  Lo siento, no he podido responder. Vuelve a preguntar o habla con una persona.
  Fuentes
  Copiar código
  Copiado
  Imagen
  Hablar con una persona
  Deja tu nombre y correo y alguien del equipo continuará esta conversación.
  Nombre
  Correo electrónico
  Enviar al equipo
  Enviando…
  Cancelar
  Escribe tu nombre.
  Escribe un correo válido, como nombre@ejemplo.com.
  ¡Gracias! El equipo tiene tu conversación y te responderá por correo.
  Ticket {id}
  Esta conversación ya está con el equipo.
  Nueva conversación
  Reintentar
  Sin conexión. El chat continuará cuando vuelvas.
  No se puede contactar con el servicio de soporte.
  Demasiadas solicitudes. Espera un momento.
  Esto está tardando más de lo esperado.
  Algo ha ido mal.
  No se ha podido enviar el mensaje.
  ¡Hola! ¿En qué podemos ayudarte?
  Tu mensaje tiene {count} caracteres; el límite es {max}. Acórtalo para enviarlo.
  {count} / {max}
  Se enviará cuando la respuesta esté lista
  Se enviará cuando vuelvas a tener conexión
  ¿Algo que añadir? (opcional)
  Creando tu ticket…
  También enviado al equipo de soporte
  Copiar respuesta
  Respuesta copiada
  Útil
  No útil
  Código {lang}
  Código
  Fuente {n}: {title}
  Preguntas sugeridas
  Páginas que pueden ayudar
  No estoy seguro: no hay una respuesta directa, pero algunas páginas parecen relacionadas. También puedes hablar con una persona.
  No se encontró ninguna respuesta. Puedes reformular la pregunta o hablar con una persona.
`;

/** French. */
const fr = lines`
  Assistance
  Ouvrir le chat d'assistance
  Fermer le chat d'assistance
  Posez une question…
  Votre question
  Envoyer
  Posez vos questions sur le produit. Les réponses viennent de la documentation, avec des liens vers leurs sources.
  Vous
  Assistant
  Recherche en cours…
  Réponse prête
  Désolé, je n'ai pas pu répondre. Réessayez ou parlez à une personne.
  Sources
  Copier le code
  Copié
  Image
  Parler à une personne
  Laissez votre nom et votre e-mail : quelqu'un de l'équipe reprendra cette conversation.
  Nom
  E-mail
  Envoyer à l'équipe
  Envoi…
  Annuler
  Saisissez votre nom.
  Saisissez une adresse e-mail valide, comme nom@exemple.com.
  Merci ! L'équipe a votre conversation et vous répondra par e-mail.
  Ticket {id}
  Cette conversation est déjà entre les mains de l'équipe.
  Nouvelle conversation
  Réessayer
  Vous êtes hors ligne. Le chat reprendra à votre retour.
  Le service d'assistance est injoignable.
  Trop de requêtes. Patientez un instant.
  Cela prend plus de temps que prévu.
  Une erreur s'est produite.
  Le message n'a pas pu être envoyé.
  Bonjour ! Comment pouvons-nous vous aider ?
  Votre message fait {count} caractères ; la limite est {max}. Raccourcissez-le pour l’envoyer.
  {count} / {max}
  Sera envoyé quand la réponse sera prête
  Sera envoyé quand vous serez de nouveau en ligne
  Quelque chose à ajouter ? (facultatif)
  Création de votre ticket…
  Également envoyé à l’équipe support
  Copier la réponse
  Réponse copiée
  Utile
  Pas utile
  Code {lang}
  Code
  Source {n} : {title}
  Questions suggérées
  Pages qui peuvent aider
  Pas sûr : aucune réponse directe, mais certaines pages semblent liées. Vous pouvez aussi parler à une personne.
  Aucune réponse trouvée. Vous pouvez reformuler la question ou parler à une personne.
`;

/** Arabic. */
const ar = lines`
  الدعم
  فتح محادثة الدعم
  إغلاق محادثة الدعم
  اطرح سؤالاً…
  سؤالك
  إرسال
  اسأل أي شيء عن المنتج. تأتي الإجابات من الوثائق مع روابط إلى مصادرها.
  أنت
  المساعد
  جارٍ العمل على ذلك…
  الإجابة جاهزة
  عذرًا، لم أتمكن من الإجابة. حاول مرة أخرى أو تحدث إلى شخص.
  المصادر
  نسخ الشيفرة
  تم النسخ
  صورة
  التحدث إلى شخص
  اترك اسمك وبريدك الإلكتروني وسيتابع أحد أعضاء الفريق هذه المحادثة.
  الاسم
  البريد الإلكتروني
  إرسال إلى الفريق
  جارٍ الإرسال…
  إلغاء
  أدخل اسمك.
  أدخل بريدًا إلكترونيًا صالحًا مثل name@example.com.
  شكرًا! وصلت محادثتك إلى الفريق وسيرد عليك عبر البريد.
  التذكرة {id}
  هذه المحادثة لدى الفريق بالفعل.
  محادثة جديدة
  حاول مجددًا
  أنت غير متصل. ستستمر المحادثة عند عودتك.
  تعذر الوصول إلى خدمة الدعم.
  طلبات كثيرة جدًا. انتظر قليلاً.
  يستغرق هذا وقتًا أطول من المتوقع.
  حدث خطأ ما.
  تعذر إرسال الرسالة.
  مرحبًا! كيف يمكننا مساعدتك؟
  رسالتك {count} حرفًا والحد الأقصى {max}. اختصرها لإرسالها.
  {count} / {max}
  ستُرسل عندما تصبح الإجابة جاهزة
  ستُرسل عند عودة الاتصال
  هل تريد إضافة شيء؟ (اختياري)
  جارٍ إنشاء تذكرتك…
  أُرسلت أيضًا إلى فريق الدعم
  نسخ الإجابة
  تم نسخ الإجابة
  مفيد
  غير مفيد
  شيفرة {lang}
  شيفرة
  المصدر {n}: {title}
  أسئلة مقترحة
  صفحات قد تساعد
  لست متأكدًا: لا توجد إجابة مباشرة، لكن بعض الصفحات تبدو ذات صلة. يمكنك أيضًا التحدث إلى شخص.
  لم يُعثر على إجابة. يمكنك إعادة صياغة السؤال أو التحدث إلى شخص.
`;

Object.assign(LOCALES, { en, es, fr, ar } satisfies Record<string, Strings>);
