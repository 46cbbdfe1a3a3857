/*
 * The floor under `blereplay import` (issue 12): how long SQLite alone takes to store one row per
 * capture record on this machine, with nothing else done. `make bench` prints it beside the import.
 *
 *     sqlite_floor [--table SQL] DB SUMMARY_BYTES CAPTURE...
 *
 * Captures are btsnoop (the format of the bench captures: RFC 1761 as btsnoop extends it): each
 * file is read whole, its records parsed (the 24-byte record header: lengths, flags, drops,
 * timestamp) and one row inserted per record into a fresh DB (re-created per capture, as a report
 * makes one timeline per capture): the `packets` view's columns (id, ts_us, direction, kind,
 * length, summary) plus the record's own bytes, raw. Nothing is decoded. The summary is
 * SUMMARY_BYTES of filler, as wide as the import's mean summary.
 *
 * With --table SQL (a CREATE TABLE statement for a table named `packet`: `make bench` passes the
 * timeline's own, read from the DB the import wrote), the rows take that table's shape instead: the
 * columns `blereplay import` binds (rowid, ts_us, direction, kind, length, layer, summary,
 * connection_id, file_offset, controller_index, raw_type, malformed, raw), the rowid as the
 * timeline keys it (capture 1 in the high 32 bits), a connection id on ACL records (nothing is
 * decoded, so one link). It tells how much of the import's distance from the floor is the row the
 * timeline's contract asks for rather than the work around it.
 *
 * Inserted the fastest way SQLite offers: one prepared statement, one transaction, journal off, no
 * fsync, no index, text and blobs bound without a copy (SQLITE_STATIC). Prints the seconds taken
 * and the rows written: "SECONDS ROWS".
 */
#include <sqlite3.h>
#include <stdint.h>
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
        fprintf(stderr, "sqlite_floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
        exit(1);
    }
    return rc;
}

/* The timeline's table (--table), or NULL for the floor's own seven columns. */
static const char *timelineTable = NULL;

static sqlite3 *open_fresh(const char *path, sqlite3_stmt **insert) {
    unlink(path);
    sqlite3 *db;
    check(NULL, sqlite3_open(path, &db), "open");
    check(db, sqlite3_exec(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", 0, 0, 0), "pragmas");
    if (timelineTable) {
        check(db, sqlite3_exec(db, timelineTable, 0, 0, 0), "schema");
        check(db, sqlite3_prepare_v2(db, "INSERT INTO packet (rowid, ts_us, direction, kind, length, layer, summary, connection_id,"
                                         " file_offset, controller_index, raw_type, malformed, raw)"
                                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", -1, insert, 0), "prepare");
    } else {
        check(db, sqlite3_exec(db, "CREATE TABLE packet (id INTEGER PRIMARY KEY, ts_us INTEGER, direction TEXT, kind TEXT,"
                                   " length INTEGER, summary TEXT, raw BLOB);", 0, 0, 0), "schema");
        check(db, sqlite3_prepare_v2(db, "INSERT INTO packet VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, insert, 0), "prepare");
    }
    check(db, sqlite3_exec(db, "BEGIN", 0, 0, 0), "begin");
    return db;
}

static void close_db(sqlite3 *db, sqlite3_stmt *s, const char *path) {
    check(db, sqlite3_exec(db, "COMMIT", 0, 0, 0), "commit");
    sqlite3_finalize(s);
    sqlite3_close(db);
    unlink(path);
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One btsnoop file into a fresh DB; returns the rows written. */
static long floor_capture(const char *path, const char *file, const char *summary, int summaryBytes) {
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "sqlite_floor: %s: cannot open\n", file);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)size + 1);
    if (fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "sqlite_floor: %s: short read\n", file);
        exit(1);
    }
    fclose(f);
    if (size < 16 || memcmp(data, "btsnoop\0", 8) != 0) {
        fprintf(stderr, "sqlite_floor: %s: not a btsnoop file\n", file);
        exit(1);
    }
    sqlite3_stmt *s;
    sqlite3 *db = open_fresh(path, &s);
    long rows = 0;
    for (long at = 16; at + 24 <= size;) {
        const unsigned char *h = data + at;
        uint32_t original = be32(h), included = be32(h + 4), flags = be32(h + 8);
        int64_t ts = (int64_t)((uint64_t)be32(h + 16) << 32 | be32(h + 20));
        if (at + 24 + (long)included > size) break;
        rows++;
        if (timelineTable) {
            sqlite3_bind_int64(s, 1, (int64_t)1 << 32 | rows);
            sqlite3_bind_int64(s, 2, ts - 0x00dcddb30f2f8000LL);
            sqlite3_bind_text(s, 3, (flags & 1) ? "rx" : "tx", 2, SQLITE_STATIC);
            sqlite3_bind_text(s, 4, (flags & 2) ? "evt" : "acl", 3, SQLITE_STATIC);
            sqlite3_bind_int64(s, 5, original);
            sqlite3_bind_text(s, 6, (flags & 2) ? "hci" : "acl", 3, SQLITE_STATIC);
            sqlite3_bind_text(s, 7, summary, summaryBytes, SQLITE_STATIC);
            if (flags & 2) sqlite3_bind_null(s, 8); else sqlite3_bind_int64(s, 8, 1);
            sqlite3_bind_int64(s, 9, at);
            sqlite3_bind_int64(s, 10, 0);
            sqlite3_bind_int64(s, 11, 0);
            sqlite3_bind_int64(s, 12, 0);
            sqlite3_bind_blob(s, 13, h + 24, (int)included, SQLITE_STATIC);
        } else {
            sqlite3_bind_int64(s, 1, rows);
            sqlite3_bind_int64(s, 2, ts - 0x00dcddb30f2f8000LL);
            sqlite3_bind_text(s, 3, (flags & 1) ? "rx" : "tx", 2, SQLITE_STATIC);
            sqlite3_bind_text(s, 4, (flags & 2) ? "event" : "acl", (flags & 2) ? 5 : 3, SQLITE_STATIC);
            sqlite3_bind_int64(s, 5, original);
            sqlite3_bind_text(s, 6, summary, summaryBytes, SQLITE_STATIC);
            sqlite3_bind_blob(s, 7, h + 24, (int)included, SQLITE_STATIC);
        }
        check(db, sqlite3_step(s), "insert");
        sqlite3_reset(s);
        at += 24 + (long)included;
    }
    close_db(db, s, path);
    free(data);
    return rows;
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "--table") == 0) {
        timelineTable = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: sqlite_floor [--table SQL] DB SUMMARY_BYTES CAPTURE...\n");
        return 2;
    }
    const char *path = argv[1];
    int summaryBytes = atoi(argv[2]);
    char *summary = malloc((size_t)summaryBytes + 1);
    memset(summary, 'x', (size_t)summaryBytes);
    double start = now();
    long rows = 0;
    for (int i = 3; i < argc; i++) rows += floor_capture(path, argv[i], summary, summaryBytes);
    printf("%.3f %ld\n", now() - start, rows);
    return 0;
}
