import type { Plugin } from 'vite';
export function emitMarkdown(): Plugin;
