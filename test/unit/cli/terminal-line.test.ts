/**
 * One terminal line (issue 41): a progress frame fits the terminal's columns whatever its width
 * and its unit label — the label is cut first, then the estimate shortened — and any other
 * line written while a frame is shown clears the frame first.
 */
import { describe, expect, it } from 'vitest';
import { createTerminalLine, fitFrame, type FrameParts } from '../../../functions/cli/progress.js';

const widthOf = (text: string) => [...text].length;

const LONG_LABEL = `feedback_by_page ${'proj_'.padEnd(60, 'x')} 2026-11-20 p.12345`;

function parts(overrides: Partial<FrameParts> = {}): FrameParts {
  return {
    done: 7,
    count: 14,
    requests: '1234 requests',
    estimate: { long: '~9876 request(s) to go (a guess for 12 unit(s)), the budget needs ~4 h 05 min', short: '~9876 to go, budget ~4 h 05 min' },
    label: 'feedback proj_a 2026-11-20 p.3',
    waiting: { long: 'waiting 12:34 for budget', short: 'wait 12:34' },
    ...overrides,
  };
}

describe('a progress frame fits the terminal', () => {
  const cases = [
    ['a short label', parts()],
    ['a 100-character label', parts({ label: LONG_LABEL })],
    ['a label of wide and combining characters', parts({ label: `feedback 日本語プロジェクト${'é'.repeat(80)} 2026-11-20` })],
    ['no wait', parts({ label: LONG_LABEL, waiting: undefined })],
    ['no label yet', parts({ label: '' })],
  ] as const;

  it.each(cases)('is narrower than every width from 20 to 200 columns, with %s', (_, frame) => {
    for (let columns = 20; columns <= 200; columns++) {
      const text = fitFrame(frame, columns);

      expect(widthOf(text), `${columns} columns: ${text}`).toBeLessThan(columns);
      expect(text).not.toMatch(/[\r\n]/);
    }
  });

  it('shows everything, the label whole, where the terminal is wide enough', () => {
    const text = fitFrame(parts(), 200);

    expect(text).toBe(
      '[##########----------] 7/14 units · 1234 requests · ~9876 request(s) to go (a guess for 12 unit(s)), the budget needs ~4 h 05 min · feedback proj_a 2026-11-20 p.3 · waiting 12:34 for budget',
    );
  });

  it('cuts the unit label before it shortens the estimate', () => {
    const whole = fitFrame(parts({ label: LONG_LABEL }), 400);
    const narrower = fitFrame(parts({ label: LONG_LABEL }), widthOf(whole) - 20);

    expect(whole).toContain(LONG_LABEL);

    expect(narrower).toContain('~9876 request(s) to go (a guess for 12 unit(s)), the budget needs ~4 h 05 min');
    expect(narrower).toMatch(/feedback_by_page proj_x+…/);
  });

  it('shortens the estimate once the label cannot be cut further, and keeps the countdown', () => {
    const text = fitFrame(parts(), 120);

    expect(text).toContain('~9876 to go, budget ~4 h 05 min');
    expect(text).not.toContain('request(s) to go');
    expect(text).toContain('waiting 12:34 for budget');
  });

  it('before the first unit (no label yet) keeps the long estimate where it fits', () => {
    expect(fitFrame(parts({ label: '', waiting: undefined }), 140)).toBe(
      '[##########----------] 7/14 units · 1234 requests · ~9876 request(s) to go (a guess for 12 unit(s)), the budget needs ~4 h 05 min',
    );
  });

  it('at 40 columns keeps the units done and the countdown', () => {
    const text = fitFrame(parts(), 40);

    expect(text).toContain('7/14 units');
    expect(text).toContain('wait 12:34');
  });
});

describe('the terminal line', () => {
  function terminal(columns?: number) {
    let written = '';
    const stderr = { isTTY: true, ...(columns === undefined ? {} : { columns }), write: (text: string) => (written += text) };
    return { stderr, written: () => written };
  }

  it('rewrites a frame in place, and a line written on stderr or stdout clears it first', () => {
    const { stderr, written } = terminal(80);
    let out = '';
    const line = createTerminalLine(stderr);
    const err = line.through(stderr);
    const stdout = line.through({ write: (text: string) => (out += text) });

    line.frame('[##--] 1/2 units');
    err.write('Generated the personal-data key k (mode 0600)\n');
    line.frame('[####] 2/2 units');
    stdout.write('done\n');
    err.write('a second line\n');

    expect(written()).toBe('\r[##--] 1/2 units\x1b[K\r\x1b[KGenerated the personal-data key k (mode 0600)\n\r[####] 2/2 units\x1b[K\r\x1b[Ka second line\n');
    expect(out).toBe('done\n');
  });

  it('draws no frame when stderr is not a terminal, and its lines pass as they are', () => {
    let written = '';
    const stderr = { isTTY: false, write: (text: string) => (written += text) };
    const line = createTerminalLine(stderr);

    line.frame('[##--] 1/2 units');
    line.through(stderr).write('a line\n');
    line.end();

    expect(written).toBe('a line\n');
  });

  it('takes 80 columns when the terminal says none (a pseudo-terminal of size 0)', () => {
    expect(createTerminalLine(terminal(0).stderr).columns()).toBe(80);
    expect(createTerminalLine(terminal(132).stderr).columns()).toBe(132);
  });
});
