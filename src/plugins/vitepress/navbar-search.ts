/**
 * @module The navbar's search button on a VitePress site, in the place of VitePress's own search
 * (`VPNavBarSearch`, replaced through Vite's alias as VitePress documents for internal components):
 * it opens the widget's search. A render function, not a `.vue` file, so it ships as plain
 * JavaScript built with the rest of the package; it runs in the site's browser bundle.
 */
import { defineComponent, h, onMounted, ref } from 'vue';

type Queued = ((...args: unknown[]) => void) & { q?: unknown[][] };

/** Opens the widget's search: the element's `search()`, or the command queued until its script has loaded. */
export function openWidgetSearch(): void {
  const element = document.querySelector('support-chat') as (HTMLElement & { search?: () => void }) | null;
  if (typeof element?.search === 'function') return element.search();
  const w = window as unknown as { SupportChat?: Queued };
  const queue: Queued =
    w.SupportChat ??
    Object.assign((...args: unknown[]) => {
      (queue.q ??= []).push(args);
    }, {});
  w.SupportChat = queue;
  queue('search');
}

const BUTTON_STYLE =
  'display:flex;align-items:center;gap:8px;height:40px;padding:0 10px 0 12px;margin-left:16px;border:1px solid var(--vp-c-divider);' +
  'border-radius:8px;background:var(--vp-c-bg-alt);color:var(--vp-c-text-2);font-size:13px;font-weight:500;cursor:pointer;';
const KEY_STYLE = 'padding:0 6px;border:1px solid var(--vp-c-divider);border-radius:4px;font-family:inherit;font-size:12px;';

export default defineComponent({
  name: 'VPNavBarSearch',
  setup() {
    // The key hint needs the platform, known only in the browser; the server renders the button without it.
    const keys = ref('');
    onMounted(() => {
      keys.value = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘ K' : 'Ctrl K';
    });
    return () =>
      h('div', { class: 'VPNavBarSearch', style: 'display:flex;align-items:center;flex-grow:1;padding-left:24px' }, [
        h('button', { type: 'button', class: 'support-chat-search-button', 'aria-label': 'Search', style: BUTTON_STYLE, onClick: openWidgetSearch }, [
          h('span', 'Search'),
          keys.value ? h('kbd', { style: KEY_STYLE }, keys.value) : null,
        ]),
      ]);
  },
});
