/**
 * The navbar's search from the support-chat-kit plugin, in the place of the theme's `SearchBar`: a
 * button that opens the widget's search. Plain JavaScript shipped as written, without JSX, for the
 * reason given in ../../theme/Root.js.
 */
/* global document, window, navigator */
import { createElement, useEffect, useState } from 'react';

/** Opens the widget's search: the element's `search()`, or the command queued until its script has loaded. */
function openSearch() {
  const element = document.querySelector('support-chat');
  if (element && typeof element.search === 'function') return element.search();
  const queue = (window.SupportChat = window.SupportChat || function (...args) { (queue.q = queue.q || []).push(args); });
  queue('search');
}

const buttonStyle = {
  display: 'flex',
  alignItems: 'center',
  gap: '0.5rem',
  height: '2.25rem',
  padding: '0 0.5rem 0 0.75rem',
  border: '1px solid var(--ifm-color-emphasis-300)',
  borderRadius: '40px',
  background: 'var(--ifm-background-surface-color)',
  color: 'var(--ifm-color-emphasis-700)',
  font: 'inherit',
  fontSize: '0.875rem',
  cursor: 'pointer',
};
const keyStyle = { padding: '0 0.375rem', border: '1px solid var(--ifm-color-emphasis-300)', borderRadius: '4px', fontSize: '0.75rem' };

export default function SearchBar() {
  // The key hint needs the platform, known only in the browser; the server renders the button without it.
  const [keys, setKeys] = useState('');
  useEffect(() => setKeys(/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘ K' : 'Ctrl K'), []);
  return createElement(
    'button',
    { type: 'button', className: 'support-chat-search-button', 'aria-label': 'Search', style: buttonStyle, onClick: openSearch },
    createElement('span', null, 'Search'),
    keys ? createElement('kbd', { style: keyStyle }, keys) : null,
  );
}
