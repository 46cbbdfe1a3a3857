/*
 * The floor under `blereplay import`: how long SQLite alone takes to store one row per capture
 * record on this machine, with nothing else done. `make bench` prints it beside the import.
 *
 *     sqlite_floor DB ROWS SUMMARY_BYTES RAW_BYTES
 *
 * Each row is the `packets` view's six columns (id, ts_us, direction, kind, length, summary)
 * plus the raw bytes the timeline keeps, inserted the fastest way SQLite offers: one prepared
 * statement, one transaction, journal off, no fsync, no index, text and blobs bound without a
 * copy (SQLITE_STATIC). No file is read and nothing is decoded. Prints the seconds taken.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE) {
        fprintf(stderr, "sqlite_floor: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: sqlite_floor DB ROWS SUMMARY_BYTES RAW_BYTES\n");
        return 2;
    }
    const char *path = argv[1];
    long rows = atol(argv[2]);
    int summaryBytes = atoi(argv[3]), rawBytes = atoi(argv[4]);
    char *summary = malloc((size_t)summaryBytes + 1), *raw = malloc((size_t)rawBytes + 1);
    memset(summary, 'x', (size_t)summaryBytes);
    memset(raw, 0x5A, (size_t)rawBytes);
    unlink(path);

    sqlite3 *db;
    check(db, sqlite3_open(path, &db), "open");
    check(db, sqlite3_exec(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                               "CREATE TABLE packet (id INTEGER PRIMARY KEY, ts_us INTEGER, direction TEXT, kind TEXT,"
                               " length INTEGER, summary TEXT, raw BLOB);", 0, 0, 0), "schema");
    sqlite3_stmt *s;
    check(db, sqlite3_prepare_v2(db, "INSERT INTO packet VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &s, 0), "prepare");

    double start = now();
    check(db, sqlite3_exec(db, "BEGIN", 0, 0, 0), "begin");
    for (long i = 1; i <= rows; i++) {
        sqlite3_bind_int64(s, 1, i);
        sqlite3_bind_int64(s, 2, 1700000000000000LL + i * 1000);
        sqlite3_bind_text(s, 3, (i & 1) ? "rx" : "tx", 2, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, "acl", 3, SQLITE_STATIC);
        sqlite3_bind_int64(s, 5, rawBytes);
        sqlite3_bind_text(s, 6, summary, summaryBytes, SQLITE_STATIC);
        sqlite3_bind_blob(s, 7, raw, rawBytes, SQLITE_STATIC);
        check(db, sqlite3_step(s), "insert");
        sqlite3_reset(s);
    }
    check(db, sqlite3_exec(db, "COMMIT", 0, 0, 0), "commit");
    double elapsed = now() - start;

    sqlite3_finalize(s);
    sqlite3_close(db);
    unlink(path);
    printf("%.3f\n", elapsed);
    return 0;
}
