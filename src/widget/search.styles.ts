/**
 * @module Styles of the search area. Plain CSS adopted into the element's shadow root when the search
 * module loads: the bundle's private custom properties are renamed in builds, so these take their
 * colors from the panel (inherited text and background, `currentColor` tints) and follow its theme.
 * Also the search dialog (`.panel.dialog`, what ⌘K opens): the field and its results alone, centred
 * near the top and as tall as the screen allows, as DocSearch's modal is.
 */
export const searchStyles = `
.search{padding:8px 12px 0;background:inherit}
.search input{inline-size:100%;padding:7px 10px;border:1px solid color-mix(in srgb,currentColor 55%,transparent);border-radius:8px;background:inherit}
.search-status{margin:4px 0 0;font-size:.9em}
.search-status:empty{margin:0}
.search [role=listbox]{max-block-size:min(22rem,45vh);overflow-y:auto;margin-block-start:6px;padding-block-end:4px;border-block-end:1px solid color-mix(in srgb,currentColor 25%,transparent)}
.search [role=option]{display:block;padding:6px 8px;border-radius:6px;color:inherit;text-decoration:none;cursor:pointer}
.search [role=option][aria-selected=true]{background:color-mix(in srgb,currentColor 12%,transparent);outline:2px solid transparent}
.search [part~=search-ask]{font-weight:600}
.search-page{padding:8px 8px 2px;font-size:.85em;font-weight:600}
.search-section{display:block}
.search-excerpt{display:block;font-size:.9em}
mark{color:#000;background:#ffe066}
.dialog>.messages,.dialog>.notice,.dialog>[part~=escalation],.dialog>.composer{display:none}
.dialog .search{display:flex;flex-direction:column;min-block-size:0;padding-block-end:8px}
.dialog .search [role=listbox]{max-block-size:none;min-block-size:0;border:0}
.dialog .search-excerpt{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
@media (min-width:481px){:host(:not([mode=inline])) .panel.dialog{inset:48px 0 auto;margin-inline:auto;inline-size:min(640px,calc(100vw - 32px));max-inline-size:none;block-size:auto;max-block-size:calc(100dvh - 96px)}}
`;
