/**
 * No import circle in the code that ships or runs on a laptop (functions/, sandbox/, infra/,
 * bin/, scripts/), type-only imports included: a circle is two modules that cannot be read, or
 * moved, one without the other. And no import running up the folders' layers ({@link LAYERS}):
 * a folder imports only folders below it, so the warehouse reader never depends on one of its
 * readers and a new reader (a monthly page, a digest) imports warehouse/, never report/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FOLDERS = ['functions', 'sandbox', 'infra', 'bin', 'scripts'];
/** Every relative specifier of an `import … from`, `export … from` or dynamic `import()`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/**
 * The folders' layers, lowest first; a folder imports only folders of a lower layer (never one
 * of its own layer but another folder, never one above). `functions/<folder>` is named by the
 * folder (`functions/cli.ts` belongs to `cli`); any other folder by its name at the root.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['shared'],
  ['warehouse'],
  ['export', 'follow-up', 'queries', 'sandbox'],
  ['producer', 'orgs'],
  ['gaps'],
  ['report'],
  ['insights'],
  ['cli'],
  ['bin', 'infra'],
  ['scripts'],
];
/** The edges from shared/ up to the warehouse's contract that stay, file → file, each with why. */
const ALLOWED_UPWARD = new Map([
  // The settings table parses EXPORT_DATASETS against the catalog's dataset names, and
  // PERSONAL_DATA_POLICY against the columns' policies.
  ['functions/shared/config.ts', ['functions/warehouse/catalog.ts', 'functions/warehouse/column-policy.ts']],
  // The local destination writes staging checkpoints without a temp file and fsync.
  ['functions/shared/storage/destination-local.ts', ['functions/warehouse/keys.ts']],
]);
/** Where the layer rule looks: the shipped code, and the questions the readers ask. */
const LAYERED_FOLDERS = [...FOLDERS, 'queries'];

/** The layered folder of a file relative to the root: `functions/report/x.ts` → `report`, `infra/x.ts` → `infra`. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'functions') return parts[0] as string;
  return parts.length > 2 ? (parts[1] as string) : (parts[1] as string).replace(/\.ts$/, '');
}

/** Every import that runs sideways or up the layers, as `from → to` (files relative to the root); unknown folders count as a violation too. */
function upwardEdges(graph: ReadonlyMap<string, readonly string[]>, allowed: ReadonlyMap<string, readonly string[]> = new Map()): string[] {
  const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder || allowed.get(from)?.includes(to)) continue;
      const fromLayer = layerOf.get(fromFolder);
      const toLayer = layerOf.get(toFolder);
      if (fromLayer === undefined || toLayer === undefined || toLayer >= fromLayer) found.push(`${from} → ${to}`);
    }
  }
  return found.sort();
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The module graph: file → the files it imports (a `.js` specifier names its `.ts` source). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1] as string);
      const candidate = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')].find((path) => known.has(path));
      if (candidate) targets.push(candidate);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every circle, as the files on it (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import circles', () => {
  it('finds a circle, a type-only import included, and none in a chain', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only and re-export imports as edges', () => {
    const text = "import type { A } from './a.js';\nexport * from './b.js';\nimport './c.js';\nconst d = await import('./d.js');";
    expect([...text.matchAll(SPECIFIER)].map((match) => match[1])).toEqual(['./a.js', './b.js', './c.js', './d.js']);
  });

  it('functions/, sandbox/, infra/, bin/ and scripts/ have none', () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(150);
    const graph = importGraph(files);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    expect(circles(graph).map((circle) => circle.map((file) => relative(ROOT, file)))).toEqual([]);
  });
});

describe("the folders' layers", () => {
  it('finds an import sideways or up, and none down', () => {
    const graph = new Map([
      ['functions/report/figures.ts', ['functions/warehouse/session.ts', 'functions/report/charts.ts']],
      ['functions/warehouse/session.ts', ['functions/shared/config.ts']],
      ['functions/gaps/find.ts', ['functions/report/figures.ts']],
      ['functions/export/run.ts', ['functions/follow-up/outcome.ts']],
      ['functions/cli.ts', ['functions/cli/program.ts', 'functions/insights/check.ts']],
      ['functions/nowhere/x.ts', ['functions/shared/config.ts']],
    ]);
    expect(upwardEdges(graph)).toEqual([
      'functions/export/run.ts → functions/follow-up/outcome.ts',
      'functions/gaps/find.ts → functions/report/figures.ts',
      'functions/nowhere/x.ts → functions/shared/config.ts',
    ]);
  });

  it('names each file by its folder under functions/ or at the root', () => {
    expect(['functions/insights/weekly/digest.ts', 'functions/cli.ts', 'infra/constructs/insights.ts', 'queries/questions.ts'].map(folderOf)).toEqual([
      'insights',
      'cli',
      'infra',
      'queries',
    ]);
  });

  it('shared < warehouse < export, follow-up < producer < gaps < report < insights < cli < infra, bin < scripts: no import runs up', () => {
    const files = LAYERED_FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
    const graph = new Map(
      [...importGraph(files)].map(([file, targets]) => [
        relative(ROOT, file).split(sep).join('/'),
        targets.map((target) => relative(ROOT, target).split(sep).join('/')),
      ]),
    );
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    expect(upwardEdges(graph, ALLOWED_UPWARD)).toEqual([]);
  });
});
