/** @module Moved to `helpdesks/types.ts`; re-exported for the modules that import it from here. */
export * from '../helpdesks/types.js';
