import type { Plugin } from 'vite';
export function minifyCssTemplate(body: string): string;
export function minifyLitCss(): Plugin;
