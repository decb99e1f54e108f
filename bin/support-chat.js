#!/usr/bin/env node
// The installed command runs the compiled CLI (`npm run build:node` produces it).
import '../dist/node/cli/index.js';
