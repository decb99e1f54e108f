/** @module Parsing a JSON request body: the protocol's parser, which the proxy shares. */
export { parseJsonObject } from '../../protocol/index.js';
