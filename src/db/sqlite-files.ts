/** What the command line does with a SQLite database's file: whether a server holds it, a backup, a restore. */
export { backupSqlite, describeStatusbotFile, restoreSqlite, SqliteFileError, sqliteInUse } from './dialects/sqlite/storage.js';
