/**
 * Fails on an import that reaches past the knowledge base's door: every file outside
 * src/server/knowledge imports it through `knowledge/index.ts` alone, and inside it `store/` and
 * `ranking/` do not import each other (the store may use the ranking's vector bytes; the ranking
 * reads the store through the interfaces it declares).
 */
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT, sources } from './import-graph.js';

const KNOWLEDGE = join(ROOT, 'src', 'server', 'knowledge');
const DOOR = join(KNOWLEDGE, 'index.ts');

const inside = (file: string, dir: string) => !relative(dir, file).startsWith('..');
/** The folder of src/server/knowledge a file is in (`store`, `ranking`, …), or null outside it or for its top-level files. */
const folderOf = (file: string) => (inside(file, KNOWLEDGE) ? (relative(KNOWLEDGE, file).split(sep).slice(0, -1)[0] ?? null) : null);

/** Imports from outside `knowledge` into it other than through its door, as `from → to` lines. */
export function pastTheDoor(graph: Map<string, string[]>, knowledge = KNOWLEDGE, door = DOOR): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    if (inside(from, knowledge)) continue;
    for (const to of targets) if (inside(to, knowledge) && to !== door) out.push(`${relative(ROOT, from)} → ${relative(ROOT, to)}`);
  }
  return out.sort();
}

/** The folders of `knowledge` each of a pair imports, when both import the other. */
export function mutualFolders(graph: Map<string, string[]>, folder: (file: string) => string | null = folderOf): string[] {
  const edges = new Set<string>();
  for (const [from, targets] of graph) {
    const a = folder(from);
    for (const to of targets) {
      const b = folder(to);
      if (a && b && a !== b) edges.add(`${a}→${b}`);
    }
  }
  return [...edges].filter((edge) => {
    const [a, b] = edge.split('→');
    return a! < b! && edges.has(`${b}→${a}`);
  });
}

describe("the knowledge base's door", () => {
  const graph = importGraph([...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'test'))].filter((file) => !file.includes(`${sep}node_modules${sep}`)));
  const appGraph = new Map([...graph].filter(([file]) => inside(file, join(ROOT, 'src'))));

  it('is the only way into src/server/knowledge from the rest of the sources', () => {
    expect(appGraph.size).toBeGreaterThan(100);
    expect(pastTheDoor(appGraph)).toEqual([]);
  });

  it('keeps store/ and ranking/ from importing each other, and ranking/ from the store', () => {
    expect(mutualFolders(appGraph)).toEqual([]);
    const rankingIntoStore = [...appGraph].filter(([from]) => folderOf(from) === 'ranking').flatMap(([from, targets]) => targets.filter((to) => folderOf(to) === 'store').map((to) => `${relative(ROOT, from)} → ${relative(ROOT, to)}`));
    expect(rankingIntoStore).toEqual([]);
  });

  it('finds an import past the door and two folders importing each other', () => {
    const graph = new Map([
      [join(ROOT, 'src/server/answers/a.ts'), [join(KNOWLEDGE, 'text/text.ts'), DOOR]],
      [join(KNOWLEDGE, 'store/s.ts'), [join(KNOWLEDGE, 'ranking/r.ts')]],
      [join(KNOWLEDGE, 'ranking/r.ts'), [join(KNOWLEDGE, 'store/s.ts')]],
    ]);
    expect(pastTheDoor(graph)).toEqual(['src/server/answers/a.ts → src/server/knowledge/text/text.ts']);
    expect(mutualFolders(graph)).toEqual(['ranking→store']);
  });
});
