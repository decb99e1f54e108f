import type { Plugin } from 'vite';

export function emitModule(name: string, loader: string, entry?: string, options?: { manglePrivate?: boolean }): Plugin;
