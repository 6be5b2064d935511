/* SQLite as Debian ships it (libsqlite3-0), as the report store sees it.
 *
 * Only what Swift cannot say itself is here: SQLITE_TRANSIENT and SQLITE_STATIC are casts of
 * integers to function pointers, which Swift does not import.
 */
#ifndef PETSPOT_SQLITE3_H
#define PETSPOT_SQLITE3_H

#include <sqlite3.h>

/* Text bound by copy: SQLite keeps its own until it is bound again or the bindings are cleared. */
static inline int petspot_sqlite3_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}

/* A blob bound in place: the caller keeps the bytes alive and unchanged until the statement has
 * been stepped and its bindings cleared. */
static inline int petspot_sqlite3_bind_blob_in_place(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_STATIC);
}

#endif
