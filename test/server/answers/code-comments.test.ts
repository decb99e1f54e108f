/**
 * A code piece's comments are its prose (what a reply may quote beside its code): each run of
 * comment lines a paragraph as written, never a preprocessor line or an attribute read as a
 * comment, never a licence header.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import type { Passage } from '../../../src/server/knowledge/index.js';
import { parseCode } from '../../../src/server/knowledge/ingest/code.js';
import { passageOfText } from '../../../src/server/knowledge/ingest/passage.js';
import { migrations } from '../../../src/server/schema.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { testDatabases } from '../../helpers/database.js';

const database = testDatabases();

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

describe("a code piece's doc comment as Markdown", () => {
  const TS_FILE = [
    '/**',
    ' * Reads a [robots.txt](https://www.rfc-editor.org/rfc/rfc9309) file, as [`robots-parser`] does.',
    ' *',
    ' * ```ts',
    " * const rules = robots('User-agent: *');",
    ' * ```',
    ' */',
    'export function robots(text: string) {',
    '  return text;',
    '}',
  ].join('\n');

  it('is parsed once at ingest: links read as their text, a fenced example is a code block', () => {
    const piece = parseCode(TS_FILE, { url: 'https://x.test/robots.ts', path: 'robots.ts', lang: 'typescript' }).sections.find((s) => s.title === 'robots')!;
    const [prose, example, code] = piece.passage!.blocks;
    expect(prose).toMatchObject({ kind: 'paragraph', plain: 'Reads a robots.txt file, as robots-parser does.' });
    expect(example).toMatchObject({ kind: 'code', text: "const rules = robots('User-agent: *');", lang: 'ts' });
    expect(code).toMatchObject({ kind: 'code', text: piece.code });
  });

  it('is read apart from the other comments of its piece: numbered comments above different code are not one list', () => {
    const test = ['TEST(Serializer, Block) {', '  // 1. Serialize an empty block.', '  check(empty);', '', '  // 2. Serialize a loop.', '  check(loop);', '}'].join('\n');
    const piece = parseCode(test, { url: 'https://x.test/t.cpp', path: 't.cpp', lang: 'cpp' }).sections[0]!;
    expect(piece.passage!.blocks.filter((b) => b.kind !== 'code').map((b) => [b.kind, b.text])).toEqual([
      ['steps', '1. Serialize an empty block.'],
      ['steps', '2. Serialize a loop.'],
    ]);
  });

  it('is read again after an upgrade (kb migration 5), and its files are parsed again by the next ingest; docs pages are not', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'code-comments-'));
    writeFileSync(join(folder, 'robots.ts'), TS_FILE);
    writeFileSync(join(folder, 'guide.md'), '# Guide\n\nRead the [rules](https://x.test/rules) first.\n');
    const sql = await database({ migrations: migrations.filter((m) => !(m.component === 'kb' && m.version === 5)) });
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    try {
      await engine.ingest('acme', [folder]);
      // As stored before: a code piece's comment read as plain paragraphs, its brackets and marks kept.
      for (const row of await sql.all<{ id: number; body: string; code: string; lang: string }>("SELECT id, body, code, lang FROM kb_sections WHERE kind = 'code'")) {
        await sql.run('UPDATE kb_sections SET passage = ? WHERE id = ?', [JSON.stringify(passageOfText(row.body, row.code, '', row.lang)), row.id]);
      }
      await migrate(sql, migrations);
      const stored = await sql.all<{ kind: string; passage: string | null }>('SELECT kind, passage FROM kb_sections ORDER BY kind');
      expect(stored.map((s) => [s.kind, s.passage === null])).toEqual([['code', true], ['doc', false]]);
      const again = await engine.ingest('acme', [folder]);
      expect([again.unchanged, again.updated, again.reparsed]).toEqual([1, 1, 1]);
      const [piece] = await sql.all<{ passage: string }>("SELECT passage FROM kb_sections WHERE kind = 'code'");
      expect((JSON.parse(piece!.passage) as Passage).blocks[0]!.plain).toBe('Reads a robots.txt file, as robots-parser does.');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
