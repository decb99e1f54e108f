/**
 * Fails on an import that runs up the server's layers: a folder of src/server may import its own
 * files and those of the layers below it, never those above. A folder or file the order does not
 * name fails too, so each new one is given its place.
 */
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT, sources } from './import-graph.js';

/**
 * The server's layers, top first. Each names folders (and top-level files) of src/server;
 * `protocol` is src/protocol, the wire format every part shares. Within a layer, two folders may
 * not import each other.
 */
export const SERVER_LAYERS: readonly (readonly string[])[] = [
  // The composition root: builds the server from its parts, and the schema from their migrations.
  ['index.ts', 'schema.ts'],
  // The composition root's options, checked and resolved before anything opens.
  ['server-config.ts'],
  // Front doors with routes of their own, registered by the composition root: the dashboard's page, the MCP server.
  ['dashboard', 'mcp'],
  // The HTTP pipeline and the API's routes.
  ['http'],
  // Features that read what conversations and the knowledge base hold.
  ['insights', 'retention'],
  // Synced helpdesk tickets, escalation to a helpdesk, the helpdesks' clients.
  ['tickets'],
  ['escalation'],
  ['helpdesks'],
  // Conversations, their answer jobs and worker, and the turns' streamed events.
  ['conversations'],
  ['streams'],
  // Deciding and composing replies, over the knowledge base.
  ['answers'],
  ['knowledge'],
  // Persistence and messaging.
  ['store', 'bus'],
  // What every layer may ask: the logger, and where the server may send a request.
  ['log.ts', 'local-targets.ts'],
  ['protocol'],
];

const SERVER = join(ROOT, 'src', 'server');
const PROTOCOL = join(ROOT, 'src', 'protocol');

/** The part of src/server (its first folder, or the file) a file belongs to; `protocol` for src/protocol; null for the rest of src/. */
export function partOf(file: string): string | null {
  if (!relative(PROTOCOL, file).startsWith('..')) return 'protocol';
  const path = relative(SERVER, file);
  if (path.startsWith('..')) return null;
  return path.split(sep)[0]!;
}

/**
 * The imports of `graph` that run up `layers` (or sideways both ways within one), as
 * `from → to` lines, and the parts no layer names; `part` maps a file to its part.
 */
export function upwardImports(graph: Map<string, string[]>, layers: readonly (readonly string[])[], part: (file: string) => string | null): { upward: string[]; unplaced: string[] } {
  const level = new Map(layers.flatMap((names, i) => names.map((name) => [name, i] as const)));
  const upward: string[] = [];
  const unplaced = new Set<string>();
  const sideways = new Set<string>();
  for (const [from, targets] of graph) {
    const a = part(from);
    if (a === null) continue;
    if (!level.has(a)) unplaced.add(a);
    for (const to of targets) {
      const b = part(to);
      if (b === null || b === a) continue;
      if (!level.has(b)) unplaced.add(b);
      const la = level.get(a);
      const lb = level.get(b);
      if (la === undefined || lb === undefined) continue;
      if (lb < la) upward.push(`${relative(ROOT, from)} → ${relative(ROOT, to)}`);
      else if (lb === la) sideways.add(`${a}→${b}`);
    }
  }
  for (const edge of sideways) {
    const [a, b] = edge.split('→');
    if (a! < b! && sideways.has(`${b}→${a}`)) upward.push(`${a} and ${b} import each other`);
  }
  return { upward: upward.sort(), unplaced: [...unplaced].sort() };
}

describe("the server's layers", () => {
  it('are only imported downwards', () => {
    const files = [...sources(SERVER), ...sources(PROTOCOL)];
    const graph = importGraph(files);
    expect(graph.size).toBeGreaterThan(100);
    expect(upwardImports(graph, SERVER_LAYERS, partOf)).toEqual({ upward: [], unplaced: [] });
  });

  it('finds an upward import, two folders of a layer importing each other, and a folder with no layer', () => {
    const layers = [['top'], ['middle', 'beside'], ['bottom']];
    const part = (file: string) => dirname(file);
    const graph = (edges: [string, string][]) => {
      const out = new Map<string, string[]>();
      for (const [from, to] of edges) out.set(from, [...(out.get(from) ?? []), to]);
      return out;
    };
    expect(upwardImports(graph([['top/a', 'middle/b'], ['middle/b', 'bottom/c'], ['middle/b', 'middle/d']]), layers, part)).toEqual({ upward: [], unplaced: [] });
    expect(upwardImports(graph([['bottom/c', 'top/a']]), layers, part).upward).toEqual([`${relative(ROOT, 'bottom/c')} → ${relative(ROOT, 'top/a')}`]);
    expect(upwardImports(graph([['middle/b', 'beside/e'], ['beside/e', 'middle/b']]), layers, part).upward).toEqual(['beside and middle import each other']);
    expect(upwardImports(graph([['new/x', 'bottom/c']]), layers, part).unplaced).toEqual(['new']);
  });
});
