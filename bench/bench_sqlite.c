/* bench_sqlite: the storage baseline for edit-batch commits. A bare C program
 * doing the transaction an edit batch needs at minimum — BEGIN IMMEDIATE, one
 * small insert, a version bump, COMMIT — in WAL mode at the given synchronous
 * setting, on the same disk rigd uses. Prints one JSON line with the rate.
 *
 * usage: bench_sqlite DB_PATH SYNCHRONOUS(FULL|NORMAL) SECONDS
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	sqlite3 *db;
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	char pragmas[512];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;"
		 " CREATE TABLE IF NOT EXISTS v(id INTEGER PRIMARY KEY, version INTEGER);"
		 " CREATE TABLE IF NOT EXISTS r(seq INTEGER PRIMARY KEY, body TEXT);"
		 " INSERT OR IGNORE INTO v VALUES (1, 0);",
		 argv[2]);
	if (sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK)
		return 1;
	sqlite3_stmt *ins, *bump;
	sqlite3_prepare_v2(db, "INSERT INTO r(body) VALUES ('{\"op\":\"layer.pose\"}')", -1, &ins,
			   NULL);
	sqlite3_prepare_v2(db, "UPDATE v SET version = version + 1 WHERE id = 1", -1, &bump, NULL);
	double seconds = atof(argv[3]), t0 = now(), t;
	long n = 0;
	do {
		sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		sqlite3_step(ins);
		sqlite3_reset(ins);
		sqlite3_step(bump);
		sqlite3_reset(bump);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		n++;
		t = now() - t0;
	} while (t < seconds);
	printf("{\"transactions\":%ld,\"seconds\":%.3f,\"tps\":%.1f}\n", n, t, (double)n / t);
	sqlite3_finalize(ins);
	sqlite3_finalize(bump);
	sqlite3_close(db);
	return 0;
}
