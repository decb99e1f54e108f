// Lists the tickets the demo's webhook receiver stored. Built with DOM APIs only: ticket text is never parsed as HTML.
const list = document.getElementById('tickets');

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'className') node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function renderTicket(ticket) {
  const transcript = el('ol', { 'aria-label': 'Transcript' });
  for (const message of ticket.transcript) {
    const item = el('li', {}, el('span', { className: 'role' }, message.role === 'user' ? 'Customer: ' : 'Assistant: '));
    item.append(document.createTextNode(message.content));
    transcript.append(item);
  }
  return el(
    'article',
    { className: 'ticket', id: ticket.id },
    el('h2', {}, ticket.title),
    el('p', { className: 'meta' }, `${ticket.id} · ${ticket.customer.name} <${ticket.customer.email}> · ${new Date(ticket.created_at).toLocaleString()}`),
    ...(ticket.note ? [el('h3', {}, 'Note from the customer'), el('p', { className: 'note' }, ticket.note)] : []),
    el('h3', {}, 'Summary'),
    el('p', { className: 'summary' }, ticket.summary),
    el('h3', {}, 'Transcript'),
    transcript,
  );
}

async function refresh() {
  const response = await fetch('/inbox/tickets', { headers: { accept: 'application/json' } });
  if (!response.ok) return;
  const { tickets } = await response.json();
  if (tickets.length === 0) return;
  list.replaceChildren(...tickets.map(renderTicket));
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}

await refresh();
setInterval(refresh, 3000);
