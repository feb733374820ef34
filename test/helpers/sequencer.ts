/**
 * Role: the order test files run in. The infra and integration files (seconds each) before the
 * unit files (milliseconds), so that at the end the workers share many small files rather
 * than wait on one long one; within a project, vitest's order (the longest of the last run first,
 * else the largest file). Files that read the samples' lake (the docs' `npm start` run, a minute
 * to build: sandbox-lake.ts, scripts/sample-run.ts) run last, and the lake is built meanwhile by
 * a process of its own (warm-samples.ts): with few workers, a file that asked for it first would
 * keep one of them waiting on the build.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const WARM = fileURLToPath(new URL('./warm-samples.ts', import.meta.url));

/** Whether the test file reads the samples' lake (imports its helper or its script). */
function readsSamples(file: string): boolean {
  try {
    return /from '[./]*\/(helpers\/sandbox-lake|scripts\/sample-run)\.js'/.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/** Builds the samples' lake in the background; stopped if this process ends first (the next build takes its lock over). */
function warmSamples(): void {
  const child = spawn(process.execPath, ['--import', 'tsx', WARM], { cwd: REPO, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  process.once('exit', () => child.kill());
}

/** The unit files after the others (a stable sort keeps vitest's order within each group). */
const unitLast = (file: TestSpecification): number => (file.project.name === 'unit' ? 1 : 0);

export default class SamplesLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = (await super.sort(files)).sort((a, b) => unitLast(a) - unitLast(b));
    const late = sorted.filter((file) => readsSamples(file.moduleId));
    if (late.length === 0) return sorted;
    warmSamples();
    return [...sorted.filter((file) => !late.includes(file)), ...late];
  }
}
