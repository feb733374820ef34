/**
 * Issues 42 and 57, personal data at the edges, end to end. A stand-in API on loopback answers what
 * the sandbox answers, with every path, free text and contact rewritten to carry an address,
 * a phone number and a key in every written form readers and browsers produce (full-width and
 * small at-signs, ideographic full stops, encoded at-signs, spaced and quoted forms, IP-literal
 * domains, zero-width characters, full-width and Arabic-Indic digits with ideographic spaces,
 * keys without digits; and round seven's: an address glued to what follows it, escaped twice or
 * with a broken escape, numeric entities, a key in an escaped query string, phone numbers with
 * Unicode dashes, a punycode top-level domain — test/helpers/hostile-text.ts; in paths, query
 * strings, path segments and the assistant's question category). The real CLI exports it;
 * then no Parquet value, staged page, manifest, report page (hrefs included), `gaps` line or
 * prompt holds any of them; every contact form of the one person is one stored value; and
 * `forget` of one form removes the rows of all.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacOf } from '../../../functions/shared/personal-data/index.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { HOSTILE_PERSONAL_FORMS, HOSTILE_PERSONAL_PATHS, PLANTED_SURVIVORS } from '../../helpers/hostile-text.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const API_KEY = 'mint_personal_forms_0123456789abcdef';
const PROJECT = 'proj_forms';
const FROM = '2026-02-02';
const TO = '2026-02-04';
const NOW = Date.UTC(2026, 1, 10);
const SITE = 'https://docs.example.com';

/** One person's address in every form that folds to it (what `forget` and the HMAC must treat as one). */
const PERSON = 'oscarq.zed@example.com';
const PERSON_FORMS = [
  PERSON,
  'OscarQ.Zed@Example.com',
  'oscarq.zed＠example.com',
  'oscarq.zed﹫example.com',
  'oscarq.zed@example。com',
  'ｏｓｃａｒｑ.ｚｅｄ＠ｅｘａｍｐｌｅ．ｃｏｍ',
  'oscarq.zed%40example.com',
  'oscarq.zed&#64;example.com',
  'oscarq.zed\u200b@example.com',
];
/** Every written form, the person's and the forms of other addresses, phone numbers and keys. */
const FORMS = [
  ...PERSON_FORMS,
  'oscarq.zed @ example.com',
  '"oscarq zed"@example.com',
  'oscarq.zed@[192.168.0.1]',
  '＋８１\u3000９０\u3000５３１８\u3000６４２７',
  '+٨١ ٩٠ ٥٣١٨ ٦٤٢٧',
  'sk_live_QzWxEcRvTbYnUmIkOlPa',
  'ghp_PoIuYtReWqAsDfGhJkLzXcVbNmQwErTyUiOp',
  ...HOSTILE_PERSONAL_FORMS,
];
/** What must not survive anywhere, read in a copy folded as the detector folds (NFKC, ASCII digits). */
const SURVIVORS = [/oscarq/i, /5\D{0,3}3\D{0,3}1\D{0,3}8\D{0,3}6\D{0,3}4\D{0,3}2\D{0,3}7/, /QzWxEcRvTb/, /PoIuYtReWq/, ...PLANTED_SURVIVORS];

const ARABIC_INDIC = /[\u0660-\u0669]/g;
const folded = (text: string) => text.normalize('NFKC').replace(ARABIC_INDIC, (d) => String(d.charCodeAt(0) - 0x660));
const survivorsIn = (text: string) => SURVIVORS.filter((pattern) => pattern.test(folded(text))).map(String);

let counter = 0;
const form = () => FORMS[counter++ % FORMS.length] as string;
/** A path carrying a form: in a segment (raw or percent-encoded), in the query string, or one of the paths that reached a href and a prompt. */
const pathWith = (index: number, value: string) =>
  index % 4 === 0
    ? `/u/${index}/${value}`
    : index % 4 === 1
      ? `/u/${index}/${encodeURIComponent(value)}`
      : index % 4 === 2
        ? `/signup/${index}?email=${encodeURIComponent(value)}#top`
        : `/p/${index}${HOSTILE_PERSONAL_PATHS[index % HOSTILE_PERSONAL_PATHS.length]}`;
const textWith = (text: unknown, value: string) => `${typeof text === 'string' ? text : ''} reach me: ${value} thanks`;

/** The sandbox's answer with every path, free text and contact carrying a form. */
function rewrite(body: Record<string, unknown>): Record<string, unknown> {
  const rows = (name: string) => (Array.isArray(body[name]) ? (body[name] as Record<string, unknown>[]) : []);
  for (const name of ['visitors', 'views']) for (const [i, row] of rows(name).entries()) row['path'] = pathWith(i, form());
  for (const [i, row] of rows('searches').entries()) {
    row['searchQuery'] = textWith(row['searchQuery'], form());
    if (row['topClickedPage'] != null) row['topClickedPage'] = pathWith(i, form());
  }
  for (const [i, row] of rows('feedback').entries()) {
    row['path'] = pathWith(i, form());
    if ('thumbsUp' in row) continue;
    if (typeof row['comment'] === 'string') row['comment'] = textWith(row['comment'], form());
    if (typeof row['code'] === 'string') row['code'] = textWith(row['code'], form());
    if (typeof row['contact'] === 'string') row['contact'] = PERSON_FORMS[i % PERSON_FORMS.length];
  }
  for (const [i, row] of rows('conversations').entries()) {
    row['query'] = textWith(row['query'], form());
    row['response'] = textWith(row['response'], form());
    if (typeof row['queryCategory'] === 'string') row['queryCategory'] = textWith(row['queryCategory'], form());
    row['pageUrl'] = `${SITE}${pathWith(i, form())}`;
  }
  return body;
}

let sandbox: Sandbox;
let standIn: Server;
let standInUrl: string;
let lake: string;
let stagedText = '';

/** A stand-in API: the sandbox's answers, rewritten. */
async function startStandIn(target: string): Promise<void> {
  standIn = createServer(async (req, res) => {
    const upstream = await fetch(`${target}${req.url}`, { method: req.method ?? 'GET', headers: { authorization: req.headers.authorization ?? '' } });
    let text = await upstream.text();
    if (upstream.ok && (upstream.headers.get('content-type') ?? '').includes('json')) text = JSON.stringify(rewrite(JSON.parse(text)));
    const headers: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding') headers[name] = value;
    });
    res.writeHead(upstream.status, headers).end(text);
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  const address = standIn.address();
  standInUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** Every file under `root` that is not Parquet, as text. */
async function textFiles(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.parquet')) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(root, file)] = await readFile(file, 'utf8');
  }
  return out;
}

const export_ = (args: readonly string[], env: Record<string, string> = {}) =>
  runCliAt({ url: standInUrl, apiKey: API_KEY }, ['export', '--from', FROM, '--to', TO, '--project', PROJECT, '--out', lake, ...args], { now: NOW, env });

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 12, exact: true, rows: { searches: 30, feedback: 250, assistant: 250 } }] });
  await startStandIn(sandbox.url);
  lake = await makeTempDir('personal-forms');
  // First with the pages after the first failing: units stop partial, their first pages staged.
  sandbox.addFault({ route: 'feedback', kind: 'server-error', hasCursor: true, times: Infinity });
  sandbox.addFault({ route: 'assistant', kind: 'server-error', hasCursor: true, times: Infinity });
  const partial = await export_(['--dataset', 'feedback', '--dataset', 'assistant']);
  const staged = Object.entries(await textFiles(lake)).filter(([key]) => key.startsWith('_staging'));
  stagedText = staged.map(([, text]) => text).join('\n');
  expect(staged.length, partial.stdout + partial.stderr).toBeGreaterThan(0);
  sandbox.clearFaults();
  const { code, stderr } = await export_([]);
  expect(code, stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => standIn?.close(resolve));
  await sandbox?.close();
  await removeTempDirs();
});

describe('every written form, through the export, the report and gaps', () => {
  it('the stand-in served every form', async () => {
    const answer = await fetch(`${standInUrl}/v1/analytics/${PROJECT}/feedback?dateFrom=${FROM}&dateTo=2026-02-03&limit=100`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(survivorsIn(await answer.text()).length).toBe(SURVIVORS.length);
  });

  it('no staged page holds any of them', () => {
    expect(stagedText).toMatch(/\[email\]/);
    expect(survivorsIn(stagedText)).toEqual([]);
  });

  it('no Parquet value holds any of them', async () => {
    const rows = await queryDuckDb(
      `SELECT * FROM read_parquet('${path.join(lake, '*', '*', '*.parquet')}', union_by_name = true, filename = 'source_file') WHERE source_file NOT LIKE '%export_runs%'`,
    );
    const values = rows.flatMap((row) => Object.values(row).filter((value): value is string => typeof value === 'string')).join('\n');
    expect(values).toMatch(/\/u\/\d+\/\[email\]/);
    expect(survivorsIn(values)).toEqual([]);
  });

  it("masks the assistant's question category (it may quote the question) and stores no path with a broken escape raw", async () => {
    const categories = await queryDuckDb(
      `SELECT DISTINCT query_category FROM read_parquet('${path.join(lake, 'assistant_conversations', '*', '*.parquet')}') WHERE query_category IS NOT NULL`,
    );
    const paths = await queryDuckDb(`SELECT DISTINCT path FROM read_parquet('${path.join(lake, 'feedback', '*', '*.parquet')}')`);
    expect(categories.some((row) => /\[(?:email|phone|secret)\]/.test(String(row['query_category'])))).toBe(true);
    expect(paths.map((row) => String(row['path'])).filter((p) => /%E0|%25|&#/i.test(p))).toEqual([]);
  });

  it('no manifest, run record or other file of the lake holds any of them', async () => {
    const files = await textFiles(lake);
    expect(Object.keys(files).some((key) => key.startsWith('_manifests'))).toBe(true);
    for (const [key, text] of Object.entries(files)) expect(survivorsIn(text), key).toEqual([]);
  });

  it('every contact form of the one person is one stored value', async () => {
    const rows = await queryDuckDb(`SELECT DISTINCT contact FROM read_parquet('${path.join(lake, 'feedback', '*', '*.parquet')}') WHERE contact IS NOT NULL`);
    expect(rows.map((row) => row['contact'])).toEqual([hmacOf(TEST_PERSONAL_DATA_KEY, PERSON)]);
  });

  it('the report page holds none of them, and links no cleaned path', async () => {
    const file = path.join(await makeTempDir('personal-forms-report'), 'report.html');
    const cli = await runCliAt(sandbox, ['report', '--from', FROM, '--to', TO, '--out', lake, '--file', file], { now: NOW, env: { REPORT_SITE_URL: SITE } });
    expect(cli.code, cli.stderr).toBe(0);
    const page = await readFile(file, 'utf8');

    expect(survivorsIn(page)).toEqual([]);
    const decoded = (href: string) => {
      try {
        return decodeURIComponent(href);
      } catch {
        return href;
      }
    };
    const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((match) => decoded(match[1] as string));
    expect(hrefs.filter((href) => /\[(?:email|phone|secret)\]|\?/.test(href) || survivorsIn(href).length > 0)).toEqual([]);
    expect(page).toMatch(/\[email\]/);
  });

  it('no gaps line or prompt holds any of them', async () => {
    const prompts = path.join(await makeTempDir('personal-forms-gaps'), 'prompts.jsonl');
    const cli = await runCliAt(sandbox, ['gaps', '--from', FROM, '--to', TO, '--out', lake, '--prompts', prompts, '--top', '50'], { now: NOW });
    expect(cli.code, cli.stderr).toBe(0);

    expect(cli.stdout.length).toBeGreaterThan(0);
    expect(survivorsIn(cli.stdout + cli.stderr)).toEqual([]);
    expect(survivorsIn(await readFile(prompts, 'utf8').catch(() => ''))).toEqual([]);
  });

  it('forget of one form removes the rows of every form', async () => {
    const count = async () =>
      Number(
        (
          await queryDuckDb(
            `SELECT count(*) AS n FROM read_parquet('${path.join(lake, 'feedback', '*', '*.parquet')}') WHERE contact = '${hmacOf(TEST_PERSONAL_DATA_KEY, PERSON)}'`,
          )
        )[0]?.['n'],
      );
    expect(await count()).toBeGreaterThan(PERSON_FORMS.length);

    const cli = await runCliAt(sandbox, ['forget', '--email', 'ＯＳＣＡＲＱ.ＺＥＤ＠ＥＸＡＭＰＬＥ。ＣＯＭ', '--out', lake], { now: NOW });

    expect(cli.code, cli.stderr).toBe(0);
    expect(await count()).toBe(0);
  });
});
