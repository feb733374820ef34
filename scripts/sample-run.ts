/**
 * The command output quoted in README.md and docs/report.md, from a real run: `npm start`
 * (scripts/first-look.ts) against the embedded sandbox in an empty folder, then `status --days 2`
 * and `report --days 30` there, all on one fixed clock (`SAMPLE_NOW`). The numbers are the run's
 * own; only what changes from one run to the next is normalised — the temp folder the run is made
 * in (shown as `/home/me/docs-data`), the sandbox's port, durations in ms — and the progress lines
 * (a bar on a terminal) are left out. `npm run docs` writes them between their markers; a test
 * (test/integration/docs/doc-samples.test.ts) fails while they are stale. The run is made once per
 * content of the tree (scripts/lib/lake-cache.ts), and shared by the test and `npm run docs`.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../functions/cli.js';
import type { CliIo } from '../functions/cli/io.js';
import { cachedLake } from './lib/lake-cache.js';
import { runStart } from './first-look.js';
import { dayOfFolderName } from '../functions/warehouse/lake/layout.js';

/** The run's clock: 06:00 UTC, so the latest due day (2 settle hours) is the day before. */
export const SAMPLE_NOW = Date.parse('2026-11-27T06:00:00.000Z');
/** What the temp folder the run is made in is shown as. */
export const SAMPLE_FOLDER = '/home/me/docs-data';

/** A command's output, stdout and stderr in the order they were written (progress lines left out), normalised. */
export interface SampleRun {
  readonly start: string;
  readonly status: string;
  readonly report: string;
  /** Figures of the export, for the prose. */
  readonly units: number;
  readonly requests: number;
  /** Per project, a day on average: the analytics requests its units sent and the bytes it keeps in the lake (Parquet and manifests). */
  readonly perDay: Readonly<Record<string, { readonly requests: number; readonly bytes: number }>>;
}

/** Runs `npm start`, `status --days 2` and `report --days 30` in a fresh folder `dir` (made the working folder meanwhile). */
export async function runSamples(dir: string): Promise<SampleRun> {
  await mkdir(dir, { recursive: true });
  const before = process.cwd();
  process.chdir(dir);
  // The folder as the process names it (a temp folder may be reached through a link).
  const here = process.cwd();
  try {
    const start = await capture((io) => runStart(io, []));
    const status = await capture((io) => main(['status', '--days', '2'], io));
    const report = await capture((io) => main(['report', '--days', '30'], io));
    const summary = /^(\d+) of (\d+) unit\(s\) exported .* with (\d+) API request\(s\)$/m.exec(start) ?? [];
    const normalise = (text: string) =>
      text
        .replaceAll(here, SAMPLE_FOLDER)
        .replaceAll(dir, SAMPLE_FOLDER)
        .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
        .replace(/\b\d+ ms\b/g, '<ms> ms')
        .replace(/ +$/gm, '');
    return {
      start: normalise(start),
      status: normalise(status),
      report: normalise(report),
      units: Number(summary[2] ?? Number.NaN),
      requests: Number(summary[3] ?? Number.NaN),
      perDay: await measurePerDay(path.join(here, 'data')),
    };
  } finally {
    // The lake stays: the test of gaps over a new user's lake reads it (sampleLake).
    process.chdir(before);
  }
}

/** Requests (from the manifests) and bytes (every table file and manifest) per project and day of the lake under `root`. */
async function measurePerDay(root: string): Promise<Record<string, { requests: number; bytes: number }>> {
  const totals: Record<string, { requests: number; bytes: number; days: Set<string> }> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const match = /^(proj_\w+)\.(parquet|json)$/.exec(entry.name);
    const day = dayOfFolderName(path.basename(entry.parentPath));
    if (!entry.isFile() || !match || day === undefined) continue;
    const file = path.join(entry.parentPath, entry.name);
    const id = match[1] as string;
    const project = totals[id] ?? { requests: 0, bytes: 0, days: new Set<string>() };
    totals[id] = project;
    project.days.add(day);
    project.bytes += (await stat(file)).size;
    if (entry.parentPath.includes(`${path.sep}_manifests${path.sep}`)) {
      project.requests += Number((JSON.parse(await readFile(file, 'utf8')) as { requests?: { sent?: number } }).requests?.sent ?? 0);
    }
  }
  return Object.fromEntries(Object.entries(totals).map(([id, t]) => [id, { requests: t.requests / t.days.size, bytes: Math.round(t.bytes / t.days.size) }]));
}

/** Runs `command` on an io that keeps its output; throws when it does not exit 0. */
async function capture(command: (io: CliIo) => Promise<number>): Promise<string> {
  const lines: string[] = [];
  const keep = (text: string) => lines.push(text);
  const io: CliIo = {
    stdout: { write: keep },
    // Not a terminal: the progress bar is printed as one line per unit, left out here.
    stderr: { write: (text: string) => (/^\[\d+\/\d+\]/.test(text) ? undefined : keep(text)), isTTY: false },
    env: {},
    now: () => SAMPLE_NOW,
    stopSignal: new Promise<void>(() => undefined),
  };
  const code = await command(io);
  const text = lines.join('');
  if (code !== 0) throw new Error(`the sample run exited ${code}: ${text.slice(-2000)}`);
  return text;
}

/** The samples' run and its folder, made once per content of the tree and of this script (scripts/lib/lake-cache.ts). */
async function cachedSamples(): Promise<{ readonly root: string; readonly meta: SampleRun }> {
  const own = createHash('sha256');
  for (const file of ['sample-run.ts', 'first-look.ts']) own.update(await readFile(new URL(file, import.meta.url)));
  return cachedLake(`samples-${own.digest('hex').slice(0, 12)}`, (root) => runSamples(path.join(root, 'run')));
}

/** The samples' run, made once per content of the tree and of this script. */
export async function sampleRun(): Promise<SampleRun> {
  return (await cachedSamples()).meta;
}

/**
 * A fresh copy of the lake the samples' `npm start` left: every dataset of the sandbox's default
 * projects over the 14 days before SAMPLE_NOW's day — what a new user has after `npm start`.
 */
export async function sampleLake(): Promise<string> {
  return path.join((await cachedSamples()).root, 'run', 'data');
}
