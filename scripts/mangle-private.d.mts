import type { Plugin } from 'vite';
export function manglePrivateMembers(): Plugin;
