import { writeFileSync } from 'node:fs';
import { BUILD_INFO_FILE, packageRoot, sourceCommit } from './build-info.js';

/**
 * Run by `npm run build` once the sources are compiled: records the commit they were built from beside
 * the compiled program, for `statusbot --version` (an installed package or an image has no .git).
 */
const { commit, modified } = sourceCommit(packageRoot(), process.env);
writeFileSync(BUILD_INFO_FILE, `${JSON.stringify({ commit, modified })}\n`);
