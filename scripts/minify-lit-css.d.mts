import type { Plugin } from 'vite';
export function minifyCssTemplate(body: string): string;
export function minifyCssTemplates(code: string): string;
export function shortenPrivateProperties(text: string, seed?: string): string;
export function minifyLitCss(): Plugin;
