/**
 * The scope rules an agent's pull request is judged by (docs/follow-ups.md, "The agent's
 * changes stay in scope"), and the judgement itself: a pure function of the rules and what
 * GitHub listed. Each rule broken is a reason naming the rule and its files; `unknown` reasons
 * say why the pull request could not be judged. `unknown` is never in scope.
 */
import { globMatcher } from './globs.js';

/** What the scope check found of a pull request (the same values as follow-up/outcome.ts's `ScopeVerdict`, followup_outcomes.scope). */
export type ScopeVerdict = 'in_scope' | 'out_of_scope' | 'unknown';

/** One scope rule a pull request broke, with the files that broke it (or, for `unknown`, why). */
export interface ScopeReason {
  readonly rule: string;
  readonly files: readonly string[];
}

/** Pages, the site's configuration, images and snippets: what a docs fix may touch. */
export const DEFAULT_ALLOWED = '**/*.mdx,**/*.md,docs.json,mint.json,images/**,snippets/**';

/**
 * Always out, even where `SCOPE_ALLOWED` would let a path in: any segment starting with `.`
 * (`.github/`, `.gitignore`, `.mintlify/`), CODEOWNERS, AGENTS.md, manifests and lock files,
 * scripts and workflow or configuration files run by tools.
 */
export const DEFAULT_PROTECTED = [
  '**/.*',
  '**/.*/**',
  '**/CODEOWNERS',
  '**/AGENTS.md',
  '**/package.json',
  '**/{package-lock.json,npm-shrinkwrap.json,yarn.lock,pnpm-lock.yaml,bun.lock,bun.lockb}',
  '**/{Gemfile,Gemfile.lock,requirements*.txt,pyproject.toml,poetry.lock,go.mod,go.sum,Cargo.toml,Cargo.lock,Makefile,Dockerfile}',
  '**/*.{js,mjs,cjs,ts,jsx,tsx,sh,py,rb,yml,yaml}',
].join(',');

export const DEFAULT_MAX_FILES = 10;
export const DEFAULT_MAX_LINES = 500;

/** GitHub lists at most this many files of a pull request. */
export const GITHUB_FILE_CAP = 3000;

/** At most this many paths are kept per reason (the record says the rule; the first files show which). */
export const MAX_FILES_PER_REASON = 20;

/** The rules of the settings (functions/settings/scope-settings.ts). */
export interface ScopeRules {
  /** `DOCS_REPOSITORY`, `owner/name`: a pull request in any other repository is out. Unset: any repository. */
  readonly docsRepository?: string | undefined;
  readonly allowed: readonly string[];
  readonly protected: readonly string[];
  readonly maxFiles: number;
  readonly maxLines: number;
}

/** The names of the rules, as the reasons give them. */
export const SCOPE_RULES = {
  repository: 'repository',
  protected: 'protected',
  notAllowed: 'not_allowed',
  maxFiles: 'max_files',
  maxLines: 'max_lines',
} as const;

/** Why a pull request could not be judged (the reasons of `unknown`). */
export const UNKNOWN_CAUSES = {
  noToken: 'no_token',
  apiError: 'api_error',
  fileCap: 'file_cap',
  prLink: 'pr_link',
} as const;

/** One changed file as GitHub lists it (GET …/pulls/{n}/files). */
export interface PullFile {
  readonly filename: string;
  /** A renamed file's old path. */
  readonly previousFilename?: string | undefined;
  readonly status: string;
  readonly additions: number;
  readonly deletions: number;
}

/** What the scope check found. */
export interface ScopeCheck {
  readonly scope: ScopeVerdict;
  readonly reasons: readonly ScopeReason[];
  /** Files listed (0 when none were read). */
  readonly files: number;
  /** Additions + deletions over the files listed. */
  readonly changedLines: number;
}

export function unknownScope(cause: (typeof UNKNOWN_CAUSES)[keyof typeof UNKNOWN_CAUSES], detail: readonly string[] = []): ScopeCheck {
  return { scope: 'unknown', reasons: [{ rule: cause, files: detail.slice(0, MAX_FILES_PER_REASON) }], files: 0, changedLines: 0 };
}

/** Whether `owner/name` is the docs repository (GitHub's names are case-insensitive). */
export function isDocsRepository(rules: Pick<ScopeRules, 'docsRepository'>, owner: string, repo: string): boolean {
  return rules.docsRepository === undefined || rules.docsRepository.toLowerCase() === `${owner}/${repo}`.toLowerCase();
}

/** The judgement of every file of a pull request (compiled once per set of rules). */
export type Judge = (files: readonly PullFile[]) => ScopeCheck;

/** The judgement of a pull request's files, all of them (a partial list is `unknown`: check.ts). */
export function createJudge(rules: ScopeRules): Judge {
  const isAllowed = globMatcher(rules.allowed);
  const isProtected = globMatcher(rules.protected);
  return (files) => {
    const changedLines = files.reduce((sum, file) => sum + file.additions + file.deletions, 0);
    const protectedPaths: string[] = [];
    const outside: string[] = [];
    for (const file of files) {
      // A rename is judged by both its paths: a protected file renamed into a page is still out.
      const paths = file.previousFilename && file.previousFilename !== file.filename ? [file.previousFilename, file.filename] : [file.filename];
      for (const path of paths) {
        if (isProtected(path)) protectedPaths.push(path);
        else if (!isAllowed(path)) outside.push(path);
      }
    }
    const reasons: ScopeReason[] = [];
    const add = (rule: string, paths: readonly string[]) => {
      if (paths.length > 0) reasons.push({ rule, files: [...new Set(paths)].slice(0, MAX_FILES_PER_REASON) });
    };
    add(SCOPE_RULES.protected, protectedPaths);
    add(SCOPE_RULES.notAllowed, outside);
    if (files.length > rules.maxFiles)
      add(
        SCOPE_RULES.maxFiles,
        files.map((file) => file.filename),
      );
    if (changedLines > rules.maxLines) {
      const largest = [...files].sort((a, b) => b.additions + b.deletions - (a.additions + a.deletions)).map((file) => file.filename);
      add(SCOPE_RULES.maxLines, largest);
    }
    return { scope: reasons.length === 0 ? 'in_scope' : 'out_of_scope', reasons, files: files.length, changedLines };
  };
}
