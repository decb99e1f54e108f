/**
 * A code piece's comments are its prose (what a reply may quote beside its code): each run of
 * comment lines a paragraph as written, never a preprocessor line or an attribute read as a
 * comment, never a licence header.
 */
import { describe, expect, it } from 'vitest';
import { parseCode } from '../../../src/server/knowledge/ingest/code.js';
import { passageOfText } from '../../../src/server/knowledge/ingest/passage.js';

const C_FILE = [
  '// Licensed under the Apache License, Version 2.0 (the "License");',
  '// you may not use this file except in compliance with the License.',
  '//',
  '// Unless required by applicable law or agreed to in writing, software',
  '// distributed under the License is distributed on an "AS IS" BASIS.',
  '/*',
  ' * Licensed to the Apache Software Foundation (ASF) under one or more',
  ' * contributor license agreements.',
  ' */',
  '#include <stdio.h>',
  '#define LIMIT 16',
  '',
  '// Reads one line from the input.',
  '// Lines longer than the limit are cut.',
  '//',
  '// Returns the number of bytes read.',
  'int read_line(char *buf) {',
  '  return 0;',
  '}',
].join('\n');

describe("a code piece's comments", () => {
  it('are paragraphs as written, with no preprocessor line and no licence header', () => {
    const { sections } = parseCode(C_FILE, { url: 'https://x.test/read.c', path: 'read.c', lang: 'c' });
    const bodies = sections.map((s) => s.body).join('\n\n');
    expect(bodies).not.toMatch(/include|define|Licen[cs]e|applicable law/i);
    expect(bodies).toContain('Reads one line from the input.\nLines longer than the limit are cut.\n\nReturns the number of bytes read.');
    const read = sections.find((s) => s.title === 'read_line')!;
    expect(passageOfText(read.body).blocks.map((b) => b.sentences)).toEqual([['Reads one line from the input.', 'Lines longer than the limit are cut.'], ['Returns the number of bytes read.']]);
  });

  it('start with # only where # starts a comment: Python, not Rust or C', () => {
    const python = parseCode('# Counts the words of a text.\ndef count(text):\n    return len(text.split())\n', { url: 'u', path: 'count.py', lang: 'python' });
    expect(python.sections.map((s) => s.body)).toContain('Counts the words of a text.');
    const rust = parseCode('#[derive(Debug)]\n/// A point on the plane.\npub struct Point { x: i32 }\n', { url: 'u', path: 'point.rs', lang: 'rust' });
    expect(rust.sections.map((s) => s.body)).toEqual(['A point on the plane.']);
  });
});
