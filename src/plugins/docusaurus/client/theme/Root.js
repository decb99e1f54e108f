/**
 * The site's root component from the support-chat-kit plugin: it renders the site as it is and
 * opens the widget's links to the site through Docusaurus's router (`history.push`), without
 * reloading the page. Plain JavaScript shipped as written, without JSX: it imports Docusaurus's
 * client modules (`@docusaurus/router`), which only the site's own bundler resolves, so the package's
 * TypeScript build does not compile it; the site's bundler does.
 */
/* global URL, location, addEventListener, removeEventListener */
import { useEffect } from 'react';
import { useHistory } from '@docusaurus/router';

export default function Root({ children }) {
  const history = useHistory();
  useEffect(() => {
    const navigate = (event) => {
      const url = event.detail && typeof event.detail.url === 'string' ? new URL(event.detail.url, location.href) : null;
      if (!url || url.origin !== location.origin) return;
      event.preventDefault();
      history.push(url.pathname + url.search + url.hash);
    };
    addEventListener('support-chat-navigate', navigate);
    return () => removeEventListener('support-chat-navigate', navigate);
  }, [history]);
  return children;
}
