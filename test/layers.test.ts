/**
 * The direction of the data flow, as the imports show it: input -> jobs -> client -> output, wired
 * in one place. A stage that imports one upstream of it, or two modules that import each other
 * through any path, fail here, so the layout cannot drift back into a tangle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports and re-exports of each module, as paths under src/ (`client/http.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom '(\.{1,2}\/[^']+)'/gms)].map((m) =>
      relative(SRC, normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')))),
    );
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** The folder (or top-level file) a module belongs to. */
const layer = (module: string): string => module.split('/')[0]?.replace(/\.ts$/, '') ?? module;

/** What each layer may import besides itself; anything not listed is a wrong-way import. */
const ALLOWED: Record<string, readonly string[]> = {
  types: ['errors'],
  secrets: [],
  errors: ['secrets'],
  log: ['secrets'],
  contract: [],
  batches: [],
  // Shared by the client, which counts requests asleep before a retry, and the engine, which reads it.
  'retry-sleeps': [],
  // Shared by the client, which counts each HTTP attempt, and the engine, which says whose it is.
  'http-attempts': [],
  // Quotes a path for the commands geobatch suggests (init's notes, a run's hints).
  'shell-word': [],
  // Whether a pid names a running process: asked by a run's lock and a distributed run's claim.
  'process-alive': [],
  'nearest-word': [],
  'number-texts': ['types'],
  // A row's own field by name, read by the jobs, the engine's messages and the writers alike.
  fields: ['types'],
  input: ['batches', 'errors', 'number-texts', 'types'],
  client: ['contract', 'errors', 'http-attempts', 'nearest-word', 'retry-sleeps', 'secrets', 'types'],
  emulator: ['contract', 'errors'],
  engine: ['batches', 'errors', 'fields', 'http-attempts', 'retry-sleeps', 'secrets', 'types'],
  output: ['engine', 'errors', 'fields', 'number-texts', 'secrets', 'types'],
  jobs: ['client', 'contract', 'engine', 'errors', 'fields', 'nearest-word', 'number-texts', 'types'],
  config: ['client', 'contract', 'errors', 'input', 'jobs', 'nearest-word', 'output', 'types', 'secrets'],
};

const graph = importGraph();

describe('layers', () => {
  it('imports only downstream: no stage imports one upstream of it', () => {
    const wrong: string[] = [];
    for (const [module, targets] of graph) {
      const allowed = ALLOWED[layer(module)];
      if (allowed === undefined) continue; // the composition root, cli/, index.ts: they wire everything
      for (const target of targets) {
        const to = layer(target);
        if (to !== layer(module) && !allowed.includes(to)) wrong.push(`${module} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycle between modules', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (module: string): void => {
      if (state.get(module) === 'done') return;
      if (state.get(module) === 'open') {
        cycles.push([...path.slice(path.indexOf(module)), module].join(' -> '));
        return;
      }
      state.set(module, 'open');
      path.push(module);
      for (const target of graph.get(module) ?? []) visit(target);
      path.pop();
      state.set(module, 'done');
    };
    for (const module of graph.keys()) visit(module);
    expect(cycles).toEqual([]);
  });

  it('keeps the wire contract apart: neither client nor emulator imports the other', () => {
    const crossing = [...graph].flatMap(([module, targets]) =>
      targets
        .filter(
          (t) =>
            (layer(module) === 'client' && layer(t) === 'emulator') ||
            (layer(module) === 'emulator' && layer(t) === 'client'),
        )
        .map((t) => `${module} -> ${t}`),
    );
    expect(crossing).toEqual([]);
  });
});
