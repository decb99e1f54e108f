/**
 * @module Loads the search (field, results, "Ask AI") on first use: it is its own module next to the
 * bundle (dist/search.js), as the Markdown parser is, so the first bundle stays within its budget.
 */
type SearchModule = typeof import('./search.js');

// Read while the script runs: in the classic-script build this is `document.currentScript`'s URL.
const BASE = import.meta.url;
let loading: Promise<SearchModule | undefined> | undefined;

/** The search module (loaded once); undefined when it cannot load (the panel then has no search field). */
export function loadSearch(): Promise<SearchModule | undefined> {
  // The source as tests run it unbundled; the build emits .js and points here (scripts/emit-module.mjs).
  return (loading ??= import(/* @vite-ignore */ new URL('search.ts', BASE).href).catch(() => undefined));
}
