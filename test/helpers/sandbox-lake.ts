/**
 * Role: the lake a new user has after `npm start` without a key, as far as `gaps` reads it: the
 * searches, feedback and assistant conversations of the sandbox's default projects (small,
 * medium and the large one) over the two weeks `npm start` exports, by the real CLI. Built once
 * per content of the tree (lake-cache.ts); each test file gets its own copy.
 */
import { expect } from 'vitest';
import { addDays } from '../../functions/shared/dates.js';
import { DEFAULT_PROJECTS, startSandbox } from '../../sandbox/index.js';
import { runCliAt } from './cli.js';
import { cachedLake } from './lake-cache.js';

/** The sandbox's own projects, as `npm start` exports them. */
export const SANDBOX_PROJECTS = DEFAULT_PROJECTS.map((project) => project.id);
/** The day after the last exported one (exclusive). */
export const SANDBOX_TO = '2026-11-26';
/** The first exported day: two weeks, as `npm start` exports. */
export const SANDBOX_FROM = addDays(SANDBOX_TO, -14);
/** 06:00 UTC of SANDBOX_TO: every exported day is due. */
export const SANDBOX_NOW = Date.parse(`${SANDBOX_TO}T06:00:00Z`);

/** The folder of a fresh copy of the lake. */
export async function buildSandboxLake(): Promise<string> {
  const { root } = await cachedLake('sandbox', exportSandboxLake);
  return root;
}

async function exportSandboxLake(root: string): Promise<null> {
  const sandbox = await startSandbox();
  try {
    const args = [
      'export',
      '--from',
      SANDBOX_FROM,
      '--to',
      SANDBOX_TO,
      '--out',
      root,
      ...['searches', 'feedback', 'assistant'].flatMap((dataset) => ['--dataset', dataset]),
      ...SANDBOX_PROJECTS.flatMap((project) => ['--project', project]),
    ];
    const { code, stderr } = await runCliAt(sandbox, args, { now: SANDBOX_NOW });
    expect(code, stderr).toBe(0);
  } finally {
    await sandbox.close();
  }
  return null;
}
