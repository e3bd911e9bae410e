/** Whether `--db` (or STATUSBOT_DB) names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (path: string): boolean => /^postgres(ql)?:\/\//i.test(path);

/** What `--db` takes, for the messages that refuse something else. */
export const DATABASE_FORMS = 'a SQLite file (a path, file:PATH or sqlite:PATH) or a PostgreSQL URL (postgres://… or postgresql://…)';

/** A `--db` (or STATUSBOT_DB) value that names no database statusbot can use. */
export class DatabaseTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseTargetError';
  }
}

/**
 * The database `given` names, as openDatabase takes it: a PostgreSQL URL as
 * given, a SQLite file as its path. `from` says where the value came from
 * (`--db`, `STATUSBOT_DB`). An empty value, and a scheme statusbot does not
 * know (`mysql://…`), are refused: either would otherwise be a SQLite file of
 * that name, made empty and used without a word.
 */
export function databaseTarget(given: string, from: string): string {
  if (given.trim() === '') throw new DatabaseTargetError(`${from} is empty; give it ${DATABASE_FORMS}`);
  if (isPostgresUrl(given)) return given;
  const file = /^(file|sqlite):(.*)$/is.exec(given);
  if (file) {
    const rest = file[2]!;
    // file:///var/lib/x.db is the absolute path; file://host/… names a host, which a local file has not.
    if (rest.startsWith('//') && !rest.startsWith('///')) {
      throw new DatabaseTargetError(`${from} ${given} names a host; a SQLite file is local: ${file[1]}:///ABSOLUTE/PATH or ${file[1]}:RELATIVE/PATH`);
    }
    const path = rest.startsWith('///') ? rest.slice(2) : rest;
    if (path === '') throw new DatabaseTargetError(`${from} ${given} names no file; give it ${DATABASE_FORMS}`);
    return path;
  }
  // Two letters or more: C:\… is a Windows drive, not a scheme.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(given);
  if (scheme) throw new DatabaseTargetError(`${from} ${given}: statusbot has no ${scheme[1]}: databases; give it ${DATABASE_FORMS}`);
  return given;
}
