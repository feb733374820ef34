/**
 * Output paths are checked before any work (issue 37): `report --file`, `gaps --prompts` and
 * `--out` exit 2 with one line naming what the user typed — a pseudo-file system (/proc, /sys),
 * a file where a folder should be — in well under a second, and `status` refuses a destination
 * it cannot read instead of calling every unit missing. The CLI runs in process; root or not.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const NOW = Date.parse('2026-10-09T06:00:00.000Z');
let env: Record<string, string>;
let folder: string;

beforeAll(async () => {
  folder = await makeTempDir('output-paths');
  env = { EXPORT_STATE_DIR: path.join(folder, 'state'), EXPORT_DESTINATION: path.join(folder, 'data'), MINTLIFY_PROJECT_IDS: 'proj_a' };
  await writeFile(path.join(folder, 'a-file'), 'not a folder');
});

afterAll(removeTempDirs);

async function timed(argv: readonly string[]) {
  const started = performance.now();
  const run = await runCliInProcess(argv, { env, now: () => NOW });
  return { ...run, ms: performance.now() - started };
}

function expectRefused(run: { code: number; stderr: string; ms: number }, typed: string) {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toContain(typed);
  expect(run.stderr).not.toMatch(/\.tmp\b|EEXIST|EACCES …|at .*\.ts:/);
  // At once: no hang on a pseudo-file system (5 s holds under load; the refusal takes milliseconds).
  expect(run.ms).toBeLessThan(5_000);
}

describe('output paths checked first', () => {
  it.each(['/proc/x.html', '/sys/r.html'])('report --file %s exits 2 at once, naming the path', async (file) => {
    expectRefused(await timed(['report', '--file', file]), file);
  });

  it('gaps --prompts /proc/x.jsonl exits 2 at once, naming the path', async () => {
    expectRefused(await timed(['gaps', '--prompts', '/proc/x.jsonl']), '/proc/x.jsonl');
  });

  it('gaps --prompts under a file (not a folder) exits 2 naming what was typed', async () => {
    const typed = path.join(folder, 'a-file', 'prompts.jsonl');
    expectRefused(await timed(['gaps', '--prompts', typed]), typed);
  });

  it('status --out /proc/x (a destination nothing can be exported to) exits 2 naming it', async () => {
    expectRefused(await timed(['status', '--out', '/proc/x']), '/proc/x');
  });

  it('report --out /proc/x exits 2 naming it', async () => {
    expectRefused(await timed(['report', '--out', '/proc/x']), '/proc/x');
  });

  it.skipIf(process.getuid?.() === 0)('status on a destination it may not read exits 2 naming it', async () => {
    const locked = path.join(folder, 'locked');
    await mkdir(locked);
    await chmod(locked, 0o000);
    try {
      expectRefused(await timed(['status', '--out', locked]), locked);
    } finally {
      await chmod(locked, 0o700);
    }
  });
});
