/**
 * Fails on any import circle under src/: every import (static, dynamic and type-only) read with
 * TypeScript's own pre-processor, the graph's strongly connected components found with Tarjan's
 * algorithm (linear in files and imports).
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT, sources } from './import-graph.js';

/** The import circles of a graph: its strongly connected components of more than one file, or a file importing itself. */
export function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative, so a long import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
      }
    }
  }
  return found;
}

describe('the import graph of src/', () => {
  it('has no circle', () => {
    const graph = importGraph(sources(join(ROOT, 'src')));
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph).map((c) => c.map((f) => relative(ROOT, f)))).toEqual([]);
  });

  it('finds a circle when there is one (two files, and a long chain closed at its end)', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['a']], ['c', []]]))).toEqual([['a', 'b']]);
    const chain = new Map(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, [`f${(i + 1) % 50_000}`]] as [string, string[]]));
    expect(circles(chain)[0]).toHaveLength(50_000);
    expect(circles(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(circles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
