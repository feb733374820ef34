/**
 * The gaps a new user sees first (issue 37): `gaps --top 10 --json`, as a real process, over the
 * lake `npm start` leaves from the sandbox's default projects. Its ten gaps mix the kinds (one
 * unanswered question no longer outweighs a page's thumbs down nor a search nobody clicked
 * because the service puts thousands of questions in one category), and every unanswered gap
 * names a concrete question — the most asked of its topic, quoted in its title.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gap } from '../../functions/gaps/gaps.js';
import { readerText } from '../../functions/shared/reader-text.js';
import { runSpawnedCli } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/files.js';
import { buildSandboxLake, SANDBOX_FROM, SANDBOX_PROJECTS, SANDBOX_TO } from '../helpers/sandbox-lake.js';

let root: string;

beforeAll(async () => {
  root = await buildSandboxLake();
}, 600_000);

afterAll(removeTempDirs);

describe('gaps --top 10 over the sandbox lake', () => {
  it('mixes the kinds and names concrete questions', async () => {
    const { code, stdout, stderr } = await runSpawnedCli(['gaps', '--out', root, '--from', SANDBOX_FROM, '--to', SANDBOX_TO, '--top', '10', '--json'], {
      HOME: root,
    });
    expect(code, stderr).toBe(0);
    const { gaps, projects } = JSON.parse(stdout) as { gaps: Gap[]; projects: string[] };

    expect(projects).toEqual([...SANDBOX_PROJECTS].sort());
    expect(gaps).toHaveLength(10);
    const kinds = gaps.map((gap) => gap.kind);
    expect(new Set(kinds), kinds.join(', ')).toEqual(new Set(['unanswered_topic', 'search_without_clicks', 'thumbs_down_page']));
    for (const gap of gaps) {
      if (gap.evidence.kind !== 'unanswered_topic') continue;
      const [question] = gap.evidence.examples;
      expect(question, gap.title).toBeTruthy();
      expect(gap.title).toContain(`most asked: "${readerText(question ?? '', 'quote')}"`);
    }
  });
});
