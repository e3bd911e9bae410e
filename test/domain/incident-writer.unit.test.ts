import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * Every change of an incident goes through one pipeline (docs/architecture.md):
 * no file outside it writes the incident tables. This scans src/ and adapters/
 * for kysely writes of those tables (insertInto, updateTable, deleteFrom,
 * replaceInto, mergeInto) and raw SQL that inserts, updates or deletes their
 * rows. Migrations (migrations/, outside both) make the tables and are exempt.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'adapters'];
const INCIDENT_TABLES = new Set(['incidents', 'incident_updates', 'monitor_incidents']);

/** The pipeline: its orchestrator and its parts. */
const PIPELINE = (path: string): boolean => path === 'src/domain/incidents/incident-pipeline.ts' || path.startsWith('src/domain/incidents/pipeline/');

/** Files that write the tables and are no change of an incident, with why. */
const EXEMPT: Record<string, string> = {
  'src/db/copy.ts': 'copies a whole database to an empty one on another engine, every row as it is (statusbot db copy)',
};

const WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
const SQL_WRITE = /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|merge\s+into|update|delete\s+from)\s+(?:only\s+)?["`]?(\w+)["`]?/gi;

/** The table a kysely argument names ('incidents', 'incidents as i'); undefined for any other expression. */
const tableOf = (node: ts.Node): string | undefined => (ts.isStringLiteralLike(node) ? node.text.trim().split(/\s+/)[0] : undefined);

/** A template's text, with `${sql.table('x')}` (or `sql.id`, `sql.ref`) read as the name it gives. */
function templateText(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  let text = template.head.text;
  for (const span of template.templateSpans) {
    const e = span.expression;
    const named =
      ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ['table', 'id', 'ref'].includes(e.expression.name.text) && e.arguments[0]
        ? tableOf(e.arguments[0])
        : undefined;
    text += (named ?? '?') + span.literal.text;
  }
  return text;
}

const sqlWrites = (text: string): string[] => [...text.matchAll(SQL_WRITE)].map((m) => m[1]!.toLowerCase()).filter((t) => INCIDENT_TABLES.has(t));

/** Where a source writes an incident table: `line: what`, one a write. */
function incidentWrites(source: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const namesTable = new RegExp(`['"\`](${[...INCIDENT_TABLES].join('|')})['"\`]`).test(source);
  const at = (node: ts.Node, what: string) => found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const [first] = node.arguments;
      if (WRITES.has(method) && first) {
        const tables = ts.isArrayLiteralExpression(first) ? first.elements.map(tableOf) : [tableOf(first)];
        for (const table of tables) {
          if (table !== undefined && INCIDENT_TABLES.has(table)) at(node, `${method}('${table}')`);
          // A table chosen as the program runs, in a file that names an incident table: it may be one.
          if (table === undefined && namesTable) at(node, `${method}(${first.getText(file)})`);
        }
      }
      if (method === 'raw' && first && ts.isStringLiteralLike(first)) for (const table of sqlWrites(first.text)) at(node, `raw SQL writing ${table}`);
    }
    if (ts.isTaggedTemplateExpression(node)) for (const table of sqlWrites(templateText(node.template))) at(node, `sql writing ${table}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split('\\').join('/'));
}

describe('the incident tables have one writer, the incident pipeline', () => {
  it('no file of src/ or adapters/ outside the pipeline inserts, updates or deletes incidents, their updates or monitor incidents', () => {
    const breaches: string[] = [];
    const files = SCANNED.flatMap(sourcesUnder);
    expect(files).toContain('src/domain/incidents/incident-pipeline.ts');
    for (const path of files) {
      if (PIPELINE(path) || path in EXEMPT) continue;
      for (const write of incidentWrites(readFileSync(join(ROOT, path), 'utf8'), path)) breaches.push(`${path}:${write}`);
    }
    expect(breaches, 'change incidents through src/domain/incidents/incident-pipeline.ts').toEqual([]);
  });

  it('the pipeline itself is seen writing them (the scan reads what it should)', () => {
    const store = readFileSync(join(ROOT, 'src/domain/incidents/pipeline/incident-store.ts'), 'utf8');
    expect(incidentWrites(store).join('\n')).toMatch(
      /insertInto\('incidents'\)[\s\S]*deleteFrom\('incident_updates'\)[\s\S]*insertInto\('monitor_incidents'\)/,
    );
  });

  it.each([
    ["await trx.insertInto('incidents').values(row).execute();", "insertInto('incidents')"],
    ["db.updateTable('incident_updates').set({ stage: 'resolved' })", "updateTable('incident_updates')"],
    ["trx.deleteFrom('incidents as i').where('i.id', '=', 1)", "deleteFrom('incidents')"],
    ["db.replaceInto('monitor_incidents').values(row)", "replaceInto('monitor_incidents')"],
    ["db.mergeInto('incidents').using('x', 'a', 'b')", "mergeInto('incidents')"],
    ["db.deleteFrom(['incident_updates', 'outbox'])", "deleteFrom('incident_updates')"],
    ["const t: 'incidents' | 'outbox' = pick(); await trx.deleteFrom(t).execute();", 'deleteFrom(t)'],
    [`await sql\`DELETE FROM incidents WHERE id = \${id}\`.execute(trx);`, 'sql writing incidents'],
    [`await sql\`update "incident_updates" set stage = \${s}\`.execute(trx);`, 'sql writing incident_updates'],
    [`await sql\`insert into \${sql.table('incidents')} (title) values (\${t})\`.execute(db);`, 'sql writing incidents'],
    ["await trx.executeQuery(CompiledQuery.raw('delete from monitor_incidents'));", 'raw SQL writing monitor_incidents'],
  ])('catches %s', (source, what) => {
    expect(incidentWrites(source)).toEqual([`1: ${what}`]);
  });

  it.each([
    "db.selectFrom('incidents').selectAll()",
    "db.insertInto('incident_leads').values(row)",
    '// delete from incidents where the comment says so',
    'sql`select id from incidents where resolved = 1`',
    'trx.deleteFrom(table) // no incident table named in this file',
  ])('lets %s be', (source) => {
    expect(incidentWrites(source)).toEqual([]);
  });
});
