/**
 * The site's pages: each project has a stable catalogue of paths (`/docs/<section>/<slug>`,
 * a few with non-ASCII or percent-encoded characters), catalogue entry `k` ↦ one unique path,
 * the same every day. Visitors and views count visits to these pages; searches, feedback
 * and the assistant point at them.
 */
import { createRandom, mix, shuffled } from './hash.js';
import { baseRows, type ProjectRegistry } from './projects.js';
import { memo } from './cache.js';

const SECTIONS = ['getting-started', 'guides', 'api-reference', 'components', 'integrations', 'deploy', 'settings', 'changelog', 'ai', 'référence'] as const;

const FIRST_WORDS = [
  'quickstart',
  'install',
  'authentication',
  'webhooks',
  'pagination',
  'errors',
  'rate-limits',
  'analytics',
  'search',
  'navigation',
  'themes',
  'custom-domain',
  'redirects',
  'versioning',
  'openapi',
  'snippets',
  'callouts',
  'code-blocks',
  'tabs',
  'accordions',
  'cards',
  'images',
  'überblick',
  'café',
  'naïve',
  'getting%20started',
  '日本語',
  'sso',
  'scim',
  'audit-logs',
  'feedback',
  'llms-txt',
  'mcp',
  'agents',
  'workflows',
  'preview',
  'github',
  'gitlab',
] as const;

const SECOND_WORDS = [
  'overview',
  'setup',
  'reference',
  'examples',
  'faq',
  'migration',
  'best-practices',
  'troubleshooting',
  'limits',
  'configuration',
  'concepts',
  'tutorial',
  'api',
  'cli',
  'sdk',
  'v1',
  'v2',
  'advanced',
  'basics',
  'security',
  'pricing',
  'changelog',
  'guide',
  'intro',
] as const;

const PATH_COMBINATIONS = SECTIONS.length * FIRST_WORDS.length * SECOND_WORDS.length;
/** A prime that divides no PATH_COMBINATIONS factor, so `k ↦ k·m mod C` is a bijection. */
const PATH_MULTIPLIER = 7_919;

interface Catalogue {
  readonly firstWords: readonly string[];
  readonly secondWords: readonly string[];
  /** Offset of the path bijection, per project. */
  readonly pathOffset: number;
}

/** The catalogue of paths of every project. */
export class SitePages {
  private readonly catalogues = new Map<string, Catalogue>();

  constructor(private readonly registry: ProjectRegistry) {}

  /**
   * Path of catalogue entry `k` of a project. An affine bijection scrambles `k` within each
   * block of `PATH_COMBINATIONS` (so neighbouring entries look unrelated), then a mixed-radix
   * decomposition picks section and words; later blocks get a numeric suffix.
   */
  path(projectId: string, k: number): string {
    const catalogue = this.catalogue(projectId);
    const block = Math.floor(k / PATH_COMBINATIONS);
    const within = (((k % PATH_COMBINATIONS) * PATH_MULTIPLIER + catalogue.pathOffset) % PATH_COMBINATIONS) + block * PATH_COMBINATIONS;
    const section = SECTIONS[within % SECTIONS.length] as string;
    let q = Math.floor(within / SECTIONS.length);
    const first = catalogue.firstWords[q % catalogue.firstWords.length] as string;
    q = Math.floor(q / catalogue.firstWords.length);
    const second = catalogue.secondWords[q % catalogue.secondWords.length] as string;
    q = Math.floor(q / catalogue.secondWords.length);
    return `/docs/${section}/${first}-${second}${q > 0 ? `-${q + 1}` : ''}`;
  }

  /** The docs site's host name, e.g. `docs.small.example.com` for `proj_small`. */
  host(projectId: string): string {
    return `docs.${projectId.replace(/^proj_/, '').replace(/_/g, '-')}.example.com`;
  }

  /** Catalogue entries the views data lists on a day (its base rows), at least 1, at most `most`. */
  listed(projectId: string, most = Number.POSITIVE_INFINITY): number {
    return Math.max(1, Math.min(baseRows(this.registry.require(projectId).seed, 'views').rows, most));
  }

  private catalogue(projectId: string): Catalogue {
    return memo(this.catalogues, projectId, () => {
      const key = this.registry.require(projectId).key;
      const random = createRandom(key);
      return {
        firstWords: shuffled(FIRST_WORDS, random),
        secondWords: shuffled(SECOND_WORDS, random),
        pathOffset: mix(key, 4) % PATH_COMBINATIONS,
      };
    });
  }
}
