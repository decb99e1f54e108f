/** @module Spanish: a line per key of `Strings`, in the order `KEYS` in ../locales.ts lists them (loaded on demand, see there). */
export default `
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
  ¡Gracias! El equipo tiene tu conversación.
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
  Inicia sesión para hablar con soporte.
  Tus conversaciones recientes
  Alguien del equipo continuará esta conversación por correo electrónico en {email}.
  ¡Gracias! El equipo tiene tu conversación y te responderá por correo.
  Buscar en la documentación
  Preguntar a la IA: {query}
  Ninguna página coincide con «{query}».
  La búsqueda falló.
  Buscando…
`;
