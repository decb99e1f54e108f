/** @module Everything widget, proxy and server share. */
export * from './types.js';
export * from './errors.js';
export * from './limits.js';
export * from './input.js';
export * from './headers.js';
export * from './rate-window.js';
export * from './retry.js';
export * from './visitor.js';
