#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: these wrappers set the options the
/// importer needs before the library initialises.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// A busy handler that counts the times a lock was waited for and waits no longer (returns 0:
/// the caller gets SQLITE_BUSY at once). For tests that assert a connection never waits.
static int csqlite_count_busy_call(void *counter, int attempts) {
    (void)attempts;
    (*(int *)counter)++;
    return 0;
}

static inline int csqlite_count_lock_waits(sqlite3 *db, int *counter) {
    return sqlite3_busy_handler(db, csqlite_count_busy_call, counter);
}
