/** @module Parsing a JSON request body and string fields: the protocol's validators, which the proxy shares. */
export { parseJsonObject, stringField } from '../../protocol/index.js';
