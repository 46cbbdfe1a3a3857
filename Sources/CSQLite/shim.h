#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: these wrappers set the options the
/// importer needs before the library initialises.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
