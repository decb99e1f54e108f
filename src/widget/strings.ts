/** @module The widget's text in English, Spanish, French and Arabic; `strings` overrides any of it. */

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
}

const en: Strings = {
  heading: 'Support',
  launcherLabel: 'Open support chat',
  close: 'Close support chat',
  placeholder: 'Ask a question…',
  inputLabel: 'Your question',
  send: 'Send',
  welcome: 'Ask anything about the product. Answers come from the documentation, with links to where they came from.',
  you: 'You',
  assistant: 'Assistant',
  working: 'Working on it…',
  answerReady: 'Answer ready',
  failed: "Sorry, I couldn't answer that. Try asking again, or talk to a human.",
  sources: 'Sources',
  copy: 'Copy code',
  copied: 'Copied',
  image: 'Image',
  talkToHuman: 'Talk to a human',
  escalateIntro: 'Leave your name and email, and someone from the team will follow up with this conversation.',
  name: 'Name',
  email: 'Email',
  submit: 'Send to the team',
  submitting: 'Sending…',
  cancel: 'Cancel',
  nameRequired: 'Enter your name.',
  emailInvalid: 'Enter a valid email address, like name@example.com.',
  ticketCreated: 'Thanks! The team has your conversation and will reply by email.',
  ticketLink: 'Ticket {id}',
  alreadyEscalated: 'This conversation is already with the team.',
  newConversation: 'New conversation',
  retry: 'Try again',
  offline: "You're offline. The chat will continue when you're back.",
  errorNetwork: "Can't reach the support service right now.",
  errorRateLimited: 'Too many requests. Please wait a moment.',
  errorTimeout: 'This is taking longer than expected.',
  errorGeneric: 'Something went wrong.',
  errorInput: 'That message could not be sent.',
  greeting: 'Hi! How can we help?',
  tooLong: 'Your message is {count} characters; the limit is {max}. Shorten it to send.',
  counter: '{count} / {max}',
  queued: 'Will send when the answer is ready',
  queuedOffline: "Will send when you're back online",
  note: 'Anything to add? (optional)',
  creatingTicket: 'Creating your ticket…',
  alsoSent: 'Also sent to the support team',
  copyAnswer: 'Copy answer',
  copiedAnswer: 'Answer copied',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  codeIn: '{lang} code',
  code: 'Code',
  citation: 'Source {n}: {title}',
  starters: 'Suggested questions',
};

const es: Strings = {
  heading: 'Soporte',
  launcherLabel: 'Abrir el chat de soporte',
  close: 'Cerrar el chat de soporte',
  placeholder: 'Haz una pregunta…',
  inputLabel: 'Tu pregunta',
  send: 'Enviar',
  welcome: 'Pregunta lo que quieras sobre el producto. Las respuestas vienen de la documentación, con enlaces a su origen.',
  you: 'Tú',
  assistant: 'Asistente',
  working: 'Trabajando en ello…',
  answerReady: 'Respuesta lista',
  failed: 'Lo siento, no he podido responder. Vuelve a preguntar o habla con una persona.',
  sources: 'Fuentes',
  copy: 'Copiar código',
  copied: 'Copiado',
  image: 'Imagen',
  talkToHuman: 'Hablar con una persona',
  escalateIntro: 'Deja tu nombre y correo y alguien del equipo continuará esta conversación.',
  name: 'Nombre',
  email: 'Correo electrónico',
  submit: 'Enviar al equipo',
  submitting: 'Enviando…',
  cancel: 'Cancelar',
  nameRequired: 'Escribe tu nombre.',
  emailInvalid: 'Escribe un correo válido, como nombre@ejemplo.com.',
  ticketCreated: '¡Gracias! El equipo tiene tu conversación y te responderá por correo.',
  ticketLink: 'Ticket {id}',
  alreadyEscalated: 'Esta conversación ya está con el equipo.',
  newConversation: 'Nueva conversación',
  retry: 'Reintentar',
  offline: 'Sin conexión. El chat continuará cuando vuelvas.',
  errorNetwork: 'No se puede contactar con el servicio de soporte.',
  errorRateLimited: 'Demasiadas solicitudes. Espera un momento.',
  errorTimeout: 'Esto está tardando más de lo esperado.',
  errorGeneric: 'Algo ha ido mal.',
  errorInput: 'No se ha podido enviar el mensaje.',
  greeting: '¡Hola! ¿En qué podemos ayudarte?',
  tooLong: 'Tu mensaje tiene {count} caracteres; el límite es {max}. Acórtalo para enviarlo.',
  counter: '{count} / {max}',
  queued: 'Se enviará cuando la respuesta esté lista',
  queuedOffline: 'Se enviará cuando vuelvas a tener conexión',
  note: '¿Algo que añadir? (opcional)',
  creatingTicket: 'Creando tu ticket…',
  alsoSent: 'También enviado al equipo de soporte',
  copyAnswer: 'Copiar respuesta',
  copiedAnswer: 'Respuesta copiada',
  helpful: 'Útil',
  notHelpful: 'No útil',
  codeIn: 'Código {lang}',
  code: 'Código',
  citation: 'Fuente {n}: {title}',
  starters: 'Preguntas sugeridas',
};

const fr: Strings = {
  heading: 'Assistance',
  launcherLabel: "Ouvrir le chat d'assistance",
  close: "Fermer le chat d'assistance",
  placeholder: 'Posez une question…',
  inputLabel: 'Votre question',
  send: 'Envoyer',
  welcome: 'Posez vos questions sur le produit. Les réponses viennent de la documentation, avec des liens vers leurs sources.',
  you: 'Vous',
  assistant: 'Assistant',
  working: 'Recherche en cours…',
  answerReady: 'Réponse prête',
  failed: "Désolé, je n'ai pas pu répondre. Réessayez ou parlez à une personne.",
  sources: 'Sources',
  copy: 'Copier le code',
  copied: 'Copié',
  image: 'Image',
  talkToHuman: 'Parler à une personne',
  escalateIntro: "Laissez votre nom et votre e-mail : quelqu'un de l'équipe reprendra cette conversation.",
  name: 'Nom',
  email: 'E-mail',
  submit: "Envoyer à l'équipe",
  submitting: 'Envoi…',
  cancel: 'Annuler',
  nameRequired: 'Saisissez votre nom.',
  emailInvalid: 'Saisissez une adresse e-mail valide, comme nom@exemple.com.',
  ticketCreated: "Merci ! L'équipe a votre conversation et vous répondra par e-mail.",
  ticketLink: 'Ticket {id}',
  alreadyEscalated: "Cette conversation est déjà entre les mains de l'équipe.",
  newConversation: 'Nouvelle conversation',
  retry: 'Réessayer',
  offline: 'Vous êtes hors ligne. Le chat reprendra à votre retour.',
  errorNetwork: "Le service d'assistance est injoignable.",
  errorRateLimited: 'Trop de requêtes. Patientez un instant.',
  errorTimeout: 'Cela prend plus de temps que prévu.',
  errorGeneric: "Une erreur s'est produite.",
  errorInput: "Le message n'a pas pu être envoyé.",
  greeting: 'Bonjour ! Comment pouvons-nous vous aider ?',
  tooLong: 'Votre message fait {count} caractères ; la limite est {max}. Raccourcissez-le pour l’envoyer.',
  counter: '{count} / {max}',
  queued: 'Sera envoyé quand la réponse sera prête',
  queuedOffline: 'Sera envoyé quand vous serez de nouveau en ligne',
  note: 'Quelque chose à ajouter ? (facultatif)',
  creatingTicket: 'Création de votre ticket…',
  alsoSent: 'Également envoyé à l’équipe support',
  copyAnswer: 'Copier la réponse',
  copiedAnswer: 'Réponse copiée',
  helpful: 'Utile',
  notHelpful: 'Pas utile',
  codeIn: 'Code {lang}',
  code: 'Code',
  citation: 'Source {n} : {title}',
  starters: 'Questions suggérées',
};

const ar: Strings = {
  heading: 'الدعم',
  launcherLabel: 'فتح محادثة الدعم',
  close: 'إغلاق محادثة الدعم',
  placeholder: 'اطرح سؤالاً…',
  inputLabel: 'سؤالك',
  send: 'إرسال',
  welcome: 'اسأل أي شيء عن المنتج. تأتي الإجابات من الوثائق مع روابط إلى مصادرها.',
  you: 'أنت',
  assistant: 'المساعد',
  working: 'جارٍ العمل على ذلك…',
  answerReady: 'الإجابة جاهزة',
  failed: 'عذرًا، لم أتمكن من الإجابة. حاول مرة أخرى أو تحدث إلى شخص.',
  sources: 'المصادر',
  copy: 'نسخ الشيفرة',
  copied: 'تم النسخ',
  image: 'صورة',
  talkToHuman: 'التحدث إلى شخص',
  escalateIntro: 'اترك اسمك وبريدك الإلكتروني وسيتابع أحد أعضاء الفريق هذه المحادثة.',
  name: 'الاسم',
  email: 'البريد الإلكتروني',
  submit: 'إرسال إلى الفريق',
  submitting: 'جارٍ الإرسال…',
  cancel: 'إلغاء',
  nameRequired: 'أدخل اسمك.',
  emailInvalid: 'أدخل بريدًا إلكترونيًا صالحًا مثل name@example.com.',
  ticketCreated: 'شكرًا! وصلت محادثتك إلى الفريق وسيرد عليك عبر البريد.',
  ticketLink: 'التذكرة {id}',
  alreadyEscalated: 'هذه المحادثة لدى الفريق بالفعل.',
  newConversation: 'محادثة جديدة',
  retry: 'حاول مجددًا',
  offline: 'أنت غير متصل. ستستمر المحادثة عند عودتك.',
  errorNetwork: 'تعذر الوصول إلى خدمة الدعم.',
  errorRateLimited: 'طلبات كثيرة جدًا. انتظر قليلاً.',
  errorTimeout: 'يستغرق هذا وقتًا أطول من المتوقع.',
  errorGeneric: 'حدث خطأ ما.',
  errorInput: 'تعذر إرسال الرسالة.',
  greeting: 'مرحبًا! كيف يمكننا مساعدتك؟',
  tooLong: 'رسالتك {count} حرفًا والحد الأقصى {max}. اختصرها لإرسالها.',
  counter: '{count} / {max}',
  queued: 'ستُرسل عندما تصبح الإجابة جاهزة',
  queuedOffline: 'ستُرسل عند عودة الاتصال',
  note: 'هل تريد إضافة شيء؟ (اختياري)',
  creatingTicket: 'جارٍ إنشاء تذكرتك…',
  alsoSent: 'أُرسلت أيضًا إلى فريق الدعم',
  copyAnswer: 'نسخ الإجابة',
  copiedAnswer: 'تم نسخ الإجابة',
  helpful: 'مفيد',
  notHelpful: 'غير مفيد',
  codeIn: 'شيفرة {lang}',
  code: 'شيفرة',
  citation: 'المصدر {n}: {title}',
  starters: 'أسئلة مقترحة',
};

export const LOCALES: Record<string, Strings> = { en, es, fr, ar };
const RTL = new Set(['ar', 'he', 'fa', 'ur']);

/** The built-in strings for a language tag: exact, then primary subtag, then English. */
export function localeFor(lang: string | null | undefined): { code: string; strings: Strings; dir: 'ltr' | 'rtl' } {
  const tag = (lang ?? '').toLowerCase();
  const primary = tag.split('-')[0] ?? '';
  const code = tag in LOCALES ? tag : primary in LOCALES ? primary : 'en';
  return { code, strings: LOCALES[code]!, dir: RTL.has(code) ? 'rtl' : 'ltr' };
}

export function format(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, key: string) => values[key] ?? m);
}
