/**
 * Rules of the house a test can hold, read with TypeScript's own parser (not regular
 * expressions): the CLI picks its exit code by what an error says of itself, not by a list of
 * classes; the errors one room raises live in that room; no unit test reads a clock to bound a
 * time (those bounds are the benchmark's: a unit test passes alone and under load alike); an
 * integration file starts at most one child process unless several are its point, and a folder
 * of them holds at most 18 files; no file under functions/ is over 500 lines; no export of
 * functions/ is there for the tests alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ExporterError, exitCodeOf, ConfigError, DestinationError, ApiError } from '../../../functions/shared/errors.js';
import { PaginationError } from '../../../functions/export/errors.js';
import { BudgetExhaustedError, LeaseLostError } from '../../../functions/shared/pacing/errors.js';

const source = (relative: string) => {
  const file = fileURLToPath(new URL(`../../../${relative}`, import.meta.url));
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
};

/** The right-hand names of every `x instanceof Name` in a file. */
function instanceofNames(file: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword) names.push(node.right.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** The classes a file declares. */
function classNames(file: ts.SourceFile): string[] {
  return file.statements.flatMap((statement) => (ts.isClassDeclaration(statement) && statement.name ? [statement.name.text] : []));
}

describe('the CLI exit code', () => {
  it('comes from the error itself: functions/cli.ts tests no error class', () => {
    const names = instanceofNames(source('functions/cli.ts')).filter((name) => name.endsWith('Error') && name !== 'Error' && name !== 'CommanderError');

    expect(names).toEqual([]);
  });

  it('is 2 for the user to fix, 1 for what the run met', () => {
    expect(exitCodeOf(new ConfigError('MINTLIFY_API_KEY is not set'))).toBe(2);
    expect(exitCodeOf(new DestinationError('cannot write there'))).toBe(2);
    expect(exitCodeOf(new ApiError('500', 500))).toBe(1);
    expect(exitCodeOf(new PaginationError('repeat'))).toBe(1);
    expect(exitCodeOf(new Error('anything'))).toBe(1);
    expect(new ConfigError('x')).toBeInstanceOf(ExporterError);
  });
});

describe('errors beside their rooms', () => {
  it('keeps only the shared errors in shared/errors.ts', () => {
    const shared = classNames(source('functions/shared/errors.ts'));

    for (const moved of ['PaginationError', 'InvalidRowError', 'BudgetExhaustedError', 'CircuitOpenError', 'LeaseLostError'])
      expect(shared).not.toContain(moved);
    expect(classNames(source('functions/export/errors.ts'))).toEqual(['PaginationError', 'InvalidRowError']);
    expect(classNames(source('functions/shared/pacing/errors.ts'))).toEqual(['BudgetExhaustedError', 'CircuitOpenError', 'LeaseLostError']);
    expect(new BudgetExhaustedError('later', 0).source).toBe('tool');
    expect(new LeaseLostError('taken').name).toBe('LeaseLostError');
  });
});

/** Every `.ts` file under a folder of the repository. */
function testFiles(relative: string): string[] {
  const root = fileURLToPath(new URL(`../../../${relative}`, import.meta.url));
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${relative}/${name}`);
}

/** Calls that read a wall or CPU clock to measure: `performance.now()`, `process.cpuUsage()`, `process.hrtime()`. */
function clockReads(file: ts.SourceFile): string[] {
  const reads: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(file);
      if (/^(performance\.now|process\.cpuUsage|process\.hrtime(\.bigint)?)$/.test(callee)) reads.push(`${file.fileName.split('/test/unit/')[1]}: ${callee}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return reads;
}

describe('the unit tests', () => {
  it('hold no wall-clock or CPU-time bound (linearity by counting steps; times in npm run bench)', () => {
    const reads = testFiles('test/unit').flatMap((relative) => clockReads(source(relative)));

    expect(reads).toEqual([]);
  });
});

/**
 * Calls that start a child process: the CLI's helpers (`spawnCli`, `runSpawnedCli`,
 * `runCliInTerminal`) and node:child_process's (`spawn`, `fork`, `exec`, `execFile`; as
 * `x.exec` only the first three, since a RegExp has an `exec` too).
 */
const SPAWNS = new Set(['spawnCli', 'runSpawnedCli', 'runCliInTerminal', 'spawn', 'fork', 'exec', 'execFile', 'execa']);
const SPAWN_METHODS = new Set(['spawn', 'fork', 'execFile']);

/** How many calls in a file start a child process. */
function spawnCalls(file: ts.SourceFile): number {
  let calls = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) ? SPAWNS.has(callee.text) : ts.isPropertyAccessExpression(callee) && SPAWN_METHODS.has(callee.name.text)) calls += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return calls;
}

/**
 * The integration files whose point is more than one real process: signals, several processes at
 * once, a process killed mid-work, the bin's own environment. Every other file runs the CLI in
 * this process (runCliInProcess) and keeps at most one spawned smoke test.
 */
const MANY_PROCESSES: Readonly<Record<string, string>> = {
  'drift/cli-drift.test.ts': 'the drift sandbox and the export as two processes',
  'cli/cli-doctor.test.ts': 'the state table and queue checks: the SDK reads region and credentials from the process’s environment',
  'export/run-log/cli-first-hour.test.ts': 'the SDK reads region and credentials from the process’s environment, Ctrl-C to the bin, npm start',
  'export/handler-partitions/cli-register-partitions.test.ts': 'the bin and the source as a user runs them',
  'export/resume-faults/export-two-writers.test.ts': 'two processes on the same units',
  'follow-up/follow-up-dead-claimant.test.ts': 'a claimant killed, another process taking over',
  'follow-up/follow-up-unreachable.test.ts': 'consumers stopped by signals',
  'gaps/gaps-loop.test.ts': 'the loop across commands as separate processes',
  'orgs/cli-orgs-at-once.test.ts': 'several organisations’ processes at once',
  'privacy/forget-killed.test.ts': 'forget killed mid-rewrite',
  'privacy/readers-words.test.ts': 'gaps and report over a hostile lake as the bin prints them',
  'report/report.test.ts': 'the report with Chromium in its own process',
  'state/cli-laptop.test.ts': 'enqueue without AWS settings, consume: the SDK reads the process’s environment, records on stdout',
  'storage/shared-store-local.test.ts': 'two processes sharing one ledger and one lock',
};

/** The most test files an integration folder holds directly (follow-up/ has 17). */
const MAX_ROOM_FILES = 18;

describe('the integration tests', () => {
  it('start at most one child process per file, unless its point is several (MANY_PROCESSES)', () => {
    const files = testFiles('test/integration').filter((relative) => relative.endsWith('.test.ts'));
    const many = files
      .map((relative) => ({ relative: relative.slice('test/integration/'.length), calls: spawnCalls(source(relative)) }))
      .filter(({ calls }) => calls > 1)
      .map(({ relative }) => relative);

    expect(many.filter((relative) => !(relative in MANY_PROCESSES))).toEqual([]);
    // The list shrinks with the files: a file that came down to one process leaves it.
    expect(Object.keys(MANY_PROCESSES).filter((relative) => !many.includes(relative))).toEqual([]);
  });

  it(`live in rooms of at most ${MAX_ROOM_FILES} files: a larger folder splits by behaviour (export/: datasets, resume-faults, handler-partitions, run-log)`, () => {
    const perFolder = new Map<string, number>();
    for (const relative of testFiles('test/integration').filter((name) => name.endsWith('.test.ts'))) {
      const folder = relative.slice(0, relative.lastIndexOf('/'));
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
    }

    expect([...perFolder].filter(([, files]) => files > MAX_ROOM_FILES).map(([folder, files]) => `${folder}: ${files} files`)).toEqual([]);
  });
});

/** The longest a file under functions/ may be, in lines. */
const MAX_LINES = 500;

/** A file's lines as `wc -l` counts them. */
function lineCount(relative: string): number {
  const text = readFileSync(fileURLToPath(new URL(`../../../${relative}`, import.meta.url)), 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('the files under functions/', () => {
  it(`are at most ${MAX_LINES} lines each (split by concern: a file is one job)`, () => {
    const long = testFiles('functions')
      .map((relative) => ({ relative, lines: lineCount(relative) }))
      .filter(({ lines }) => lines > MAX_LINES);

    expect(long).toEqual([]);
  });
});

/** Every `.ts`/`.js`/`.mjs` file the project ships or runs (not its tests). */
const SHIPPED = ['functions', 'queries', 'infra', 'scripts', 'bench', 'sandbox', 'bin'];

/** How often each identifier occurs in `file`, read with TypeScript's parser. */
function identifierCounts(file: ts.SourceFile, counts: Map<string, number>): void {
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) counts.set(node.text, (counts.get(node.text) ?? 0) + 1);
    ts.forEachChild(node, visit);
  };
  visit(file);
}

/** The functions and constants a file exports. */
function exportedValues(file: ts.SourceFile): string[] {
  return file.statements.flatMap((statement) => {
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) return [];
    if (ts.isFunctionDeclaration(statement) && statement.name) return [statement.name.text];
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
    return [];
  });
}

/**
 * Exports under functions/ that only tests use, kept on purpose (a test hook) or still to be
 * looked at; the list only shrinks. Deleted at R18: `sleepUntilStopped`, `periodCovering`.
 */
const ONLY_TESTS_USE = [
  'functions/export/settle.ts: isProvisional',
  'functions/gaps/terms.ts: termsOf',
  'functions/gaps/topics.ts: groupTopics',
  'functions/gaps/topics.ts: inTopic',
  'functions/insights/anomalies.ts: listAnomalies',
  'functions/report/charts.ts: barChart',
  'functions/scope/check.ts: describeReasons',
  'functions/shared/dates.ts: assertFinishedDays',
  'functions/shared/secrets.ts: clearApiKeyCache',
  'functions/shared/secrets.ts: resolveApiKey',
  'functions/warehouse/records.ts: recordAnomalies',
];

describe('the exports of functions/', () => {
  it('are each used by shipped code, not only by tests (ONLY_TESTS_USE names the exceptions)', () => {
    const files = SHIPPED.flatMap((folder) =>
      readdirSync(fileURLToPath(new URL(`../../../${folder}`, import.meta.url)), { recursive: true, encoding: 'utf8' })
        .filter((name) => /\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts'))
        .map((name) => `${folder}/${name}`)
        // What the benchmarks build (bench/out/, git-ignored) is not code anybody wrote.
        .filter((relative) => !relative.startsWith('bench/out/')),
    );
    const counts = new Map<string, number>();
    for (const relative of files) identifierCounts(source(relative), counts);
    // An export used nowhere else occurs once: where it is declared.
    const unused = files
      .filter((relative) => relative.startsWith('functions/') && relative.endsWith('.ts'))
      .flatMap((relative) => exportedValues(source(relative)).map((name) => ({ relative, name })))
      .filter(({ name }) => counts.get(name) === 1)
      .map(({ relative, name }) => `${relative}: ${name}`);

    expect(unused.filter((entry) => !ONLY_TESTS_USE.includes(entry))).toEqual([]);
    expect(ONLY_TESTS_USE.filter((entry) => !unused.includes(entry))).toEqual([]);
  });
});
