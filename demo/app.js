// The in-app Help menu drives the widget through its JavaScript API: open(), ask(text), reset().
const button = document.getElementById('help-button');
const menu = document.getElementById('help-menu');
const chat = document.querySelector('support-chat');

function setMenu(open) {
  menu.hidden = !open;
  button.setAttribute('aria-expanded', String(open));
  if (open) menu.querySelector('[role="menuitem"]')?.focus();
}

button.addEventListener('click', () => setMenu(menu.hidden));
menu.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    setMenu(false);
    button.focus();
  }
});
document.addEventListener('click', (event) => {
  if (!menu.hidden && !event.composedPath().includes(menu) && event.target !== button) setMenu(false);
});
menu.addEventListener('click', async (event) => {
  const item = event.target.closest('[role="menuitem"]');
  if (!item) return;
  setMenu(false);
  await customElements.whenDefined('support-chat');
  const action = item.dataset.action;
  if (action === 'open') chat.open();
  else if (action === 'reset') {
    chat.reset();
    chat.open();
  } else if (action === 'ask') {
    chat.open();
    chat.ask(item.dataset.question);
  }
});
