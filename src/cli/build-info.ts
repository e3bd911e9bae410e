import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `statusbot --version` tells: the package's version and the commit it was built from. */
export interface BuildInfo {
  version: string;
  /** The full commit id; null when the build knew none (a copy of the sources outside git, given no commit). */
  commit: string | null;
  /** Whether the sources had changes the commit does not hold. */
  modified: boolean;
}

/** Where `npm run build` records the commit: beside the compiled cli/ folder (dist/src/build-info.json). */
export const BUILD_INFO_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'build-info.json');

/** The folder of the first package.json above this file: the package's own (in src/, or in dist/src/ once built). */
export function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * The commit of the sources in `root`, when they are a git checkout of their own (not a package installed
 * inside another project's repository): from STATUSBOT_BUILD_COMMIT when given (an image built without .git).
 */
export function sourceCommit(root: string, env: NodeJS.ProcessEnv): Pick<BuildInfo, 'commit' | 'modified'> {
  const given = env.STATUSBOT_BUILD_COMMIT?.trim().toLowerCase();
  if (given !== undefined && COMMIT.test(given)) return { commit: given, modified: false };
  if (!existsSync(join(root, '.git'))) return { commit: null, modified: false };
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    if (!COMMIT.test(commit)) return { commit: null, modified: false };
    return { commit, modified: git('status', '--porcelain', '--untracked-files=no') !== '' };
  } catch {
    return { commit: null, modified: false };
  }
}

/** The version of the running program: the recorded build's, or (run from its sources) the checkout's. */
export function buildInfo(): BuildInfo {
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  if (existsSync(BUILD_INFO_FILE)) {
    const recorded = JSON.parse(readFileSync(BUILD_INFO_FILE, 'utf8')) as Partial<BuildInfo>;
    return { version, commit: typeof recorded.commit === 'string' ? recorded.commit : null, modified: recorded.modified === true };
  }
  return { version, ...sourceCommit(root, {}) };
}

/** `statusbot 0.3.0 (commit 4c1f…)`: one line, the commit in full so that it can be looked up. */
export function versionLine(info: BuildInfo): string {
  if (info.commit === null) return `statusbot ${info.version} (commit unknown)`;
  return `statusbot ${info.version} (commit ${info.commit}${info.modified ? ', with changes not committed' : ''})`;
}
