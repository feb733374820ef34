/**
 * The scope check of one pull request, fail closed: its link parsed, the repository compared
 * with `DOCS_REPOSITORY` (no request needed), the token asked for (none: `unknown`, no request
 * sent), the pull request read (functions/scope/github.ts; a failure after retries: `unknown`),
 * its files judged (rules.ts) and, with `GITHUB_SCOPE_STATUS=on`, the commit status set.
 * Used by the follow-up function as each job completes and by the `scope` command.
 *
 * Nothing configured (no `DOCS_REPOSITORY`, no token, no token secret): `createScopeChecker`
 * gives none and pull requests stay unchecked (scope null), so a deployment that never opted
 * in keeps its verdicts. Anything configured: every pull request is checked, and a token that
 * is missing or unreadable makes it `unknown`, never in scope.
 */
import { describeError } from '../shared/errors.js';
import { type GitHubOptions, GitHubError, parsePullLink, readPull, setScopeStatus, type PullLink } from './github.js';
import { createJudge, GITHUB_FILE_CAP, isDocsRepository, SCOPE_RULES, UNKNOWN_CAUSES, unknownScope, type ScopeCheck, type ScopeRules } from './rules.js';

/** What a scope check found, with what GitHub said of the pull request. */
export interface PullScope extends ScopeCheck {
  /** Epoch ms of the merge; null when not merged or not read. */
  readonly mergedAt: number | null;
  /** The pull request the link names (absent for a link that names none). */
  readonly pull?: PullLink;
  readonly headSha?: string;
}

/** Checks one pull request by its link. */
export type ScopeChecker = (prLink: string) => Promise<PullScope>;

export interface ScopeCheckerDeps {
  readonly rules: ScopeRules;
  /** Where GitHub is and how requests are retried (the token comes from `token`). */
  readonly github: Omit<GitHubOptions, 'token'>;
  /** The token; undefined (or a rejection) when there is none: the pull request is `unknown`. */
  readonly token: () => Promise<string | undefined>;
  /** `GITHUB_SCOPE_STATUS=on`. */
  readonly setStatus: boolean;
  /** A status that could not be set (the check's result stands). */
  readonly onWarning?: (line: string) => void;
}

/** The settings a checker is made from (the settings table's fields). */
export interface ScopeSettings {
  readonly docsRepository?: string | undefined;
  readonly githubToken?: string | undefined;
  readonly githubTokenSecretArn?: string | undefined;
  readonly githubApiUrl: string;
  readonly scopeAllowed: readonly string[];
  readonly scopeProtected: readonly string[];
  readonly scopeMaxFiles: number;
  readonly scopeMaxLines: number;
  readonly githubScopeStatus: boolean;
}

/** Whether the deployment opted in: a docs repository, a token or a token secret is set. */
export function scopeConfigured(settings: Pick<ScopeSettings, 'docsRepository' | 'githubToken' | 'githubTokenSecretArn'>): boolean {
  return settings.docsRepository !== undefined || settings.githubToken !== undefined || settings.githubTokenSecretArn !== undefined;
}

export function rulesOf(settings: ScopeSettings): ScopeRules {
  return {
    docsRepository: settings.docsRepository,
    allowed: settings.scopeAllowed,
    protected: settings.scopeProtected,
    maxFiles: settings.scopeMaxFiles,
    maxLines: settings.scopeMaxLines,
  };
}

/** The checker of `deps`. */
export function createScopeChecker(deps: ScopeCheckerDeps): ScopeChecker {
  const judge = createJudge(deps.rules);
  const apiUrl = deps.github.apiUrl;
  return async (prLink) => {
    const pull = parsePullLink(prLink, apiUrl);
    if (pull === undefined) return { ...unknownScope(UNKNOWN_CAUSES.prLink, [prLink.slice(0, 200)]), mergedAt: null };
    if (!isDocsRepository(deps.rules, pull.owner, pull.repo)) {
      return {
        scope: 'out_of_scope',
        reasons: [{ rule: SCOPE_RULES.repository, files: [`${pull.owner}/${pull.repo}`] }],
        files: 0,
        changedLines: 0,
        mergedAt: null,
        pull,
      };
    }
    let token: string | undefined;
    try {
      token = await deps.token();
    } catch (error) {
      return { ...unknownScope(UNKNOWN_CAUSES.noToken, [describeError(error).slice(0, 200)]), mergedAt: null, pull };
    }
    if (token === undefined) return { ...unknownScope(UNKNOWN_CAUSES.noToken), mergedAt: null, pull };
    const options: GitHubOptions = { ...deps.github, token };
    let result: PullScope;
    try {
      const facts = await readPull(pull, options);
      // GitHub listed fewer files than the pull request changes (its cap): nothing seen decides it.
      const judged = facts.listedAll
        ? judge(facts.files)
        : unknownScope(UNKNOWN_CAUSES.fileCap, [`${facts.changedFiles} files changed; GitHub lists at most ${GITHUB_FILE_CAP}`]);
      result = { ...judged, mergedAt: facts.mergedAt, pull, headSha: facts.headSha };
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      return { ...unknownScope(UNKNOWN_CAUSES.apiError, [error.message]), mergedAt: null, pull };
    }
    if (deps.setStatus && result.headSha !== undefined) {
      try {
        await setScopeStatus({ ...pull, sha: result.headSha }, statusOf(result), options);
      } catch (error) {
        deps.onWarning?.(`the commit status of ${pull.owner}/${pull.repo}#${pull.number} could not be set: ${describeError(error)}`);
      }
    }
    return result;
  };
}

/** The commit status of a result: success only in scope; an unknown scope blocks too. */
export function statusOf(result: ScopeCheck): { state: 'success' | 'failure' | 'error'; description: string } {
  if (result.scope === 'in_scope') return { state: 'success', description: `in scope: ${result.files} files, ${result.changedLines} lines` };
  const rules = result.reasons.map((reason) => reason.rule).join(', ');
  return result.scope === 'out_of_scope'
    ? { state: 'failure', description: `out of scope: ${rules}` }
    : { state: 'error', description: `scope unknown: ${rules}` };
}

/** One line per reason: `protected: .github/workflows/x.yml, scripts/a.sh`. */
export function describeReasons(result: Pick<ScopeCheck, 'reasons'>): string {
  return result.reasons.map((reason) => (reason.files.length === 0 ? reason.rule : `${reason.rule}: ${reason.files.join(', ')}`)).join('; ');
}

/**
 * The checker of the settings, or undefined when nothing is configured (see the file's header).
 * `token`: the token source (token.ts's `createTokenSource`).
 */
export function scopeCheckerFromSettings(
  settings: ScopeSettings,
  wiring: {
    readonly token: () => Promise<string | undefined>;
    readonly onWarning?: (line: string) => void;
    readonly github?: Partial<Omit<GitHubOptions, 'token'>>;
  },
): ScopeChecker | undefined {
  if (!scopeConfigured(settings)) return undefined;
  return createScopeChecker({
    rules: rulesOf(settings),
    github: { apiUrl: settings.githubApiUrl, ...wiring.github },
    token: wiring.token,
    setStatus: settings.githubScopeStatus,
    ...(wiring.onWarning ? { onWarning: wiring.onWarning } : {}),
  });
}
