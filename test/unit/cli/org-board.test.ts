/**
 * The terminal of organisations at once (functions/cli/organisation-board.ts): on a terminal, one line per
 * organisation at work, each within the width, below the lines the runs print; off a terminal,
 * every line whole and prefixed with its organisation.
 */
import { describe, expect, it } from 'vitest';
import { createOrganisationBoard } from '../../../functions/cli/organisation-board.js';
import { createTerminalLine } from '../../../functions/cli/progress.js';

/** What a terminal of `columns` shows after `written`: cursor moves and clears applied. */
function screen(written: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  const pattern = /\x1b\[(\d*)([FJK])|\r|\n|[^\x1b\r\n]+/g;
  for (const match of written.matchAll(pattern)) {
    const [token, count, code] = match;
    if (token === '\n') {
      row += 1;
      lines[row] ??= '';
    } else if (token === '\r') lines[row] = lines[row] ?? '';
    else if (code === 'F') row = Math.max(0, row - Number(count || 1));
    else if (code === 'J') lines.length = row + 1;
    else if (code === 'K') continue;
    else lines[row] = token;
    if (code === 'J') lines[row] = '';
  }
  return lines.filter((line, i) => line !== '' || i < lines.length - 1);
}

describe('createOrganisationBoard', () => {
  it('keeps one line per organisation at work on a terminal, each within the width, under the lines printed', () => {
    let written = '';
    const stderr = { write: (text: string) => (written += text), isTTY: true, columns: 40 };
    const board = createOrganisationBoard(stderr);
    const acme = createTerminalLine(board.stderrOf('acme'));
    const beta = createTerminalLine(board.stderrOf('beta-with-a-long-name'));
    acme.frame('[####------] 4/10 units · waiting 59:58 for budget');
    beta.frame('[##########] 6/6 units');
    acme.through(board.stderrOf('acme')).write('Plan: 10 unit(s)\n');
    const shown = screen(written);
    expect(shown).toEqual([
      '[acme] Plan: 10 unit(s)',
      expect.stringMatching(/^\[acme\] \[####------\] 4\/10 units · waiti…$/),
      expect.stringMatching(/^\[beta-with-a-long-name\] \[##########\] 6…$/),
    ]);
    for (const line of shown) expect([...line].length).toBeLessThan(40);
    board.done('beta-with-a-long-name');
    expect(screen(written).at(-1)).toMatch(/^\[acme\] /);
    board.close();
    expect(screen(written)).toEqual(['[acme] Plan: 10 unit(s)']);
  });

  it('prefixes every whole line off a terminal, a line written in pieces included, and draws no frame', () => {
    let written = '';
    const board = createOrganisationBoard({ write: (text: string) => (written += text) });
    const acme = board.stderrOf('acme');
    const beta = board.stderrOf('beta');
    expect(acme.isTTY).toBe(false);
    acme.write('waiting 1 min ');
    beta.write('done\n');
    acme.write('for budget\n');
    acme.write('left over');
    board.done('acme');
    expect(written).toBe('[beta] done\n[acme] waiting 1 min for budget\n[acme] left over\n');
  });
});
