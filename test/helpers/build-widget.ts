/** @module Builds the widget's bundles as `npm run build:widget` does, into a directory of the caller's. */
import { build } from 'vite';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** Builds dist/support-chat.js ('production') and dist/support-chat.iife.js ('iife') into `outDir`. */
export async function buildWidget(outDir: string, modes: readonly ('production' | 'iife')[] = ['production', 'iife']): Promise<void> {
  for (const mode of modes) {
    await build({ root, configFile: join(root, 'vite.config.ts'), mode, logLevel: 'silent', build: { outDir, emptyOutDir: false, sourcemap: false } });
  }
}
