import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => sourceFiles(join(path, name)).filter((p) => /\.tsx?$/.test(p) && !p.endsWith('.d.ts')));
}

const parse = (path: string) => ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);

/** The module specifiers a file imports or re-exports, and those it loads with `import()`. */
function importsOf(path: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]!)) {
      found.push((node.arguments[0] as ts.StringLiteral).text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(path));
  return found;
}

/** Functions longer than `limit` lines, as `path:line name (lines)`. */
function longFunctions(path: string, limit: number): string[] {
  const file = parse(path);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = file.getLineAndCharacterOfPosition(node.end).line - first + 1;
      if (lines > limit) long.push(`${path}:${first + 1} ${node.name?.getText() ?? '(anonymous)'} (${lines})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return long;
}

describe('the HTTP front', () => {
  it('imports no module of src/db: the composition root hands it what it needs of the database', () => {
    const reaching = sourceFiles('src/http').flatMap((path) =>
      importsOf(path)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => relative(ROOT, resolve(ROOT, dirname(path), specifier)))
        .filter((target) => target.startsWith(`src${'/'}db/`))
        .map((target) => `${path} imports ${target}`),
    );
    expect(reaching).toEqual([]);
  });
});

describe('the fronts, the composition root and what runs under them', () => {
  it('hold no function over 100 lines: each reads as named steps', () => {
    const paths = ['src/main.ts', 'src/main', 'src/http', 'src/infrastructure', 'src/cli', 'adapters/slack/app.ts', 'adapters/discord/app.ts'];
    expect(paths.flatMap(sourceFiles).flatMap((path) => longFunctions(path, 100))).toEqual([]);
  });
});
