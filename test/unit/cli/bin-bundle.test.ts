/**
 * The bin's cached bundle (bin/bundle.js): built once per content of the sources, built again
 * when one changes, each module keeping its own import.meta.url, and nothing (the bin then runs
 * the source under tsx) when the cache cannot be written.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBundle } from '../../../bin/bundle.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

afterAll(removeTempDirs);

/** The entry's source: it answers with the other module's URL and `version`. */
const cliSource = (version: number) => `import { where } from './where.js';\nexport const answer = (): string => where + ' ${version}';\n`;

/** A project of two modules: the entry, and one that names its own URL. */
async function project(): Promise<string> {
  const root = await makeTempDir('bin-bundle');
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src', 'where.ts'), 'export const where: string = import.meta.url;\n');
  await writeFile(path.join(root, 'src', 'cli.ts'), cliSource(1));
  return root;
}

describe('the bin’s bundle of the CLI', () => {
  it('is built once per content of the sources, again when one changes, and keeps each module’s import.meta.url', async () => {
    const root = await project();
    const cache = path.join(root, 'cache');

    const first = await cliBundle({ root, entry: 'src/cli.ts', cache });
    const built = (await stat(first as string)).mtimeMs;
    const again = await cliBundle({ root, entry: 'src/cli.ts', cache });
    await writeFile(path.join(root, 'src', 'cli.ts'), cliSource(2));
    const changed = await cliBundle({ root, entry: 'src/cli.ts', cache });

    expect(again).toBe(first);
    expect((await stat(again as string)).mtimeMs).toBe(built);
    expect(changed).not.toBe(first);
    const { answer } = (await import(pathToFileURL(changed as string).href)) as { answer: () => string };
    expect(answer()).toBe(`${pathToFileURL(path.join(root, 'src', 'where.ts')).href} 2`);
  });

  it('is undefined when the cache cannot be written', async () => {
    const root = await project();
    const blocked = path.join(root, 'a-file');
    await writeFile(blocked, '');

    expect(await cliBundle({ root, entry: 'src/cli.ts', cache: path.join(blocked, 'cache') })).toBeUndefined();
  });
});
