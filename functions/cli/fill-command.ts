/**
 * The `export` command a report or `status` tells a person to run to fill the days it lacks. With
 * an organisations file each organisation's run sees its own lake (`<destination>/orgs/<id>`):
 * the command then names `--org <id>` and the root destination, which is what the organisations
 * file expects — never the organisation's folder, which would nest one lake inside another.
 */
import type { Config } from '../settings/config.js';
import { orgDestination } from '../organisations/organisations.js';

/** `<root>` of `<root>/orgs/<id>`; the destination as it is when it is not organisation `id`'s. */
export function rootOf(destination: string, id: string): string {
  const suffix = orgDestination('', id);
  const trimmed = destination.replace(/\/+$/, '');
  if (trimmed === suffix.slice(1)) return '.';
  return trimmed.endsWith(suffix) ? trimmed.slice(0, -suffix.length) || '/' : destination;
}

/** `mintlify-exporter export --from … --to …` of `projects` (when they are not MINTLIFY_PROJECT_IDS), `--org` and `--out`. */
export function exportCommandOf(input: {
  readonly config: Pick<Config, 'projectIds' | 'org'>;
  readonly out: string | undefined;
  readonly from: string;
  readonly to: string;
  readonly projects: readonly string[];
}): string {
  const { config, projects } = input;
  const sameProjects = projects.length === config.projectIds.length && projects.every((p) => config.projectIds.includes(p));
  const org = config.org;
  const out = input.out !== undefined && org !== undefined ? rootOf(input.out, org) : input.out;
  const argv = [
    'export',
    ...(org !== undefined ? ['--org', org] : []),
    '--from',
    input.from,
    '--to',
    input.to,
    ...(sameProjects ? [] : projects.flatMap((p) => ['--project', p])),
    ...(out !== undefined ? ['--out', out] : []),
  ];
  return ['mintlify-exporter', ...argv.map(shellWord)].join(' ');
}

/** A word as a POSIX shell reads it back: as it is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
