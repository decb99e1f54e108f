import type { Plugin } from 'vite';
export function emitLocales(): Plugin;
