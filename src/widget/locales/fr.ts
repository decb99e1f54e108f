/** @module French: a line per key of `Strings`, in the order `KEYS` in ../locales.ts lists them (loaded on demand, see there). */
export default `
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
  Merci ! L'équipe a votre conversation.
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
  Connectez-vous pour discuter avec l’assistance.
  Vos conversations récentes
  Quelqu’un de l’équipe reprendra cette conversation par e-mail à {email}.
  Merci ! L'équipe a votre conversation et vous répondra par e-mail.
  Rechercher dans la documentation
  Demander à l'IA : {query}
  Aucune page ne correspond à « {query} ».
  La recherche a échoué.
  Recherche en cours…
`;
