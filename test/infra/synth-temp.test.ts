/**
 * A synth leaves nothing in the temp folder: a CDK App makes its cloud-assembly folder as it is
 * constructed (`cdk.out…` in the temp folder when no `outdir` is given), and `npm test` once
 * left about forty of them per run. Other processes of the machine may make such folders at
 * the same time, so the test looks for the one its own synth would leave: a template naming a
 * project id no other synth uses.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromContext } from '../../infra/stack.js';
import { synthStack, withApp } from '../helpers/synth.js';

/** `cdk.out…` folders in the temp folder changed since `since` whose template names `projectId`. */
function leftBehind(projectId: string, since: number): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('cdk.out'))
    .map((name) => join(tmpdir(), name))
    .filter((dir) => (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= since - 1_000)
    .filter((dir) => {
      const template = join(dir, 'MintlifyExporter.template.json');
      return existsSync(template) && readFileSync(template, 'utf8').includes(projectId);
    });
}

describe('the synth helpers', { timeout: 120_000 }, () => {
  it('leave no cdk.out folder in the temp folder, and remove their own assembly folder', () => {
    const projectId = `proj_${randomUUID().slice(0, 8)}`;
    const since = Date.now();

    const { app } = synthStack({ projectIds: projectId });
    withApp({ projectIds: 'p' }, configFromContext);

    expect(leftBehind(projectId, since)).toEqual([]);
    expect(existsSync(app.outdir)).toBe(false);
  });
});
