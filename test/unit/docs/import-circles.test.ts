/**
 * No import circle in the code that ships or runs on a laptop (functions/, sandbox/, infra/,
 * bin/, scripts/, bench/), type-only imports included: a circle is two modules that cannot be read, or
 * moved, one without the other. And no import running up the folders' layers ({@link LAYERS}):
 * a folder imports only folders below it, so the warehouse reader never depends on one of its
 * readers and a new reader (a monthly page, a digest) imports warehouse/, never report/.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FOLDERS = ['functions', 'sandbox', 'infra', 'bin', 'scripts', 'bench'];
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
  // The scope check of the agent's pull requests (functions/scope/): read by the settings, follow-up, gaps, report, insights and cli.
  ['scope'],
  // The table of variables: it parses dataset names and column policies (warehouse/), and every
  // reader of the configuration stands above it.
  ['settings'],
  ['export', 'follow-up', 'queries', 'sandbox'],
  // Many organisations (functions/organisations/): the producer finds a message's organisation there.
  ['organisations'],
  ['producer'],
  ['gaps'],
  ['report'],
  ['insights'],
  ['cli'],
  ['bin', 'infra'],
  // The dev tools and their library (scripts/lib/: the emulators and bundles the tests and the benchmarks start).
  ['scripts'],
  // The benchmarks: they use everything below, and nothing of test/.
  ['bench'],
];
/** Where the layer rule looks: the shipped code, the benchmarks, and the questions the readers ask. */
const LAYERED_FOLDERS = [...FOLDERS, 'queries'];

/** The layered folder of a file relative to the root: `functions/report/x.ts` → `report`, `infra/x.ts` → `infra`. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'functions') return parts[0] as string;
  return parts.length > 2 ? (parts[1] as string) : (parts[1] as string).replace(/\.ts$/, '');
}

/** Every import that runs sideways or up the layers, as `from → to` (files relative to the root); unknown folders count as a violation too. */
function upwardEdges(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
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

/**
 * The module graph: file → the files it imports (a `.js` specifier names its `.ts` source).
 * Every relative import counts, also one into a folder outside `files` (test/): it is then an
 * edge to an unknown folder, which the layer rule fails.
 */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const isFile = (path: string) => known.has(path) || (existsSync(path) && statSync(path).isFile());
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1] as string);
      const candidate = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')].find(isFile);
      if (candidate) targets.push(candidate);
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * Folders with a front door: a file of another folder (listed; `*` every other folder) imports
 * the folder only through its `index.ts`. Everyone enters the export through export/index.ts,
 * but the imports PAST_THE_DOOR names, which are still to move to the face (R14).
 */
const FRONT_DOORS: ReadonlyMap<string, readonly string[]> = new Map([['export', ['*']]]);

/** Imports past a front door still to move to the face; the list only shrinks. */
const PAST_THE_DOOR: readonly string[] = [
  'functions/insights/check.ts → functions/export/units.ts',
  'functions/organisations/handlers.ts → functions/export/deps.ts',
  'functions/organisations/handlers.ts → functions/export/handler.ts',
  'functions/organisations/worker.ts → functions/export/handler.ts',
  'functions/organisations/worker.ts → functions/export/run.ts',
  'functions/report/health.ts → functions/export/retention.ts',
  'functions/report/health.ts → functions/export/run-log.ts',
  'functions/report/health.ts → functions/export/units.ts',
  'functions/report/report.ts → functions/export/retention.ts',
  'infra/constructs/iceberg-tables.ts → functions/export/iceberg/layout.ts',
  'infra/constructs/iceberg-tables.ts → functions/export/iceberg/statements.ts',
  'scripts/first-look.ts → functions/export/settle.ts',
];

/** Every import that passes a folder's front door, as `from → to`. */
function pastFrontDoors(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const folder = folderOf(to);
      const doors = FRONT_DOORS.get(folder);
      if (folderOf(from) === folder || !(doors?.includes('*') || doors?.includes(folderOf(from)))) continue;
      if (to !== `functions/${folder}/index.ts`) found.push(`${from} → ${to}`);
    }
  }
  return found.sort();
}

/** The layered folders' graph, files relative to the root. */
function layeredGraph(): Map<string, string[]> {
  const files = LAYERED_FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
  return new Map(
    [...importGraph(files)].map(([file, targets]) => [
      relative(ROOT, file).split(sep).join('/'),
      targets.map((target) => relative(ROOT, target).split(sep).join('/')),
    ]),
  );
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

  it('functions/, sandbox/, infra/, bin/, scripts/ and bench/ have none', () => {
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

  it('reads an import into test/ as an edge, which the rule fails (test/ is no layer)', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      mkdirSync(join(root, 'scripts'));
      mkdirSync(join(root, 'test', 'helpers'), { recursive: true });
      writeFileSync(join(root, 'scripts', 'docs.ts'), "import { listFiles } from '../test/helpers/files.js';\n");
      writeFileSync(join(root, 'test', 'helpers', 'files.ts'), 'export const listFiles = 1;\n');
      const graph = new Map(
        [...importGraph([join(root, 'scripts', 'docs.ts')])].map(([file, targets]) => [relative(root, file), targets.map((target) => relative(root, target))]),
      );

      expect(upwardEdges(graph)).toEqual(['scripts/docs.ts → test/helpers/files.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('shared < warehouse < settings < export, follow-up < producer < gaps < report < insights < cli < infra, bin < scripts < bench: no import runs up, none into test/', () => {
    const graph = layeredGraph();
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    expect(upwardEdges(graph)).toEqual([]);
  });
});

describe('front doors', () => {
  it('finds an import past a front door, and none through it', () => {
    const graph = new Map([
      ['functions/cli/export.ts', ['functions/export/index.ts', 'functions/export/run.ts']],
      ['functions/export/handler.ts', ['functions/export/run.ts']],
    ]);
    expect(pastFrontDoors(graph)).toEqual(['functions/cli/export.ts → functions/export/run.ts']);
  });

  it('every folder imports export/ only through export/index.ts, but the imports PAST_THE_DOOR names', () => {
    // bench/ measures the export's parts one by one: it enters past the face until the face has a testing door of its own (R14).
    const past = pastFrontDoors(layeredGraph()).filter((edge) => !edge.startsWith('bench/'));

    expect(past.filter((edge) => !PAST_THE_DOOR.includes(edge))).toEqual([]);
    // An import moved to the face leaves the list.
    expect(PAST_THE_DOOR.filter((edge) => !past.includes(edge))).toEqual([]);
  });
});
