import { readFileSync, readdirSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);

/** The README and every page of docs/, by path from the repository's root. */
export function documentationPages(): Map<string, string> {
  const pages = new Map<string, string>([['README.md', readFileSync(new URL('README.md', ROOT), 'utf8')]]);
  for (const name of readdirSync(new URL('docs/', ROOT))
    .filter((n) => n.endsWith('.md'))
    .sort()) {
    pages.set(`docs/${name}`, readFileSync(new URL(`docs/${name}`, ROOT), 'utf8'));
  }
  return pages;
}

/** The YAML blocks of the docs that are statusbot configs: a fence naming another file (```yaml alertmanager.yml) holds another tool's. Each is a config statusbot must accept as written. */
/** The environment the documentation's config examples read (\${NAME} in them), with values they accept. */
export const DOCUMENTED_ENV: NodeJS.ProcessEnv = { METRICS_TOKEN: 'a-long-random-scrape-token', ACME_HOOK_SECRET: 'at-least-16-characters' };

/**
 * The statusbot configs the documentation shows: its YAML blocks, but for those whose first line
 * names another file (`# statusbot-values.yaml`, a Helm chart's values).
 */
export function documentedConfigs(): { page: string; yaml: string }[] {
  return [...documentationPages()].flatMap(([page, text]) =>
    [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => ({ page, yaml: m[1]! }))
      .filter(({ yaml }) => !/^# (?!statusbot\.yml\b)\S+\.ya?ml\s*\n/.test(yaml)),
  );
}
