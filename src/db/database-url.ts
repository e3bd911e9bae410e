/** Whether `--db` (or STATUSBOT_DB) names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (path: string): boolean => /^postgres(ql)?:\/\//i.test(path);
