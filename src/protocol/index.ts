/** @module Everything widget, proxy and server share. */
export * from './types.js';
export * from './errors.js';
export * from './limits.js';
