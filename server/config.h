/* rigd's configuration: command-line flags, each with a RIGD_* environment
 * variable as its default. Zero means "use the default" in every numeric field.
 */
#ifndef RIG_CONFIG_H
#define RIG_CONFIG_H

#include <stddef.h>

#include "db.h"

struct rig_config {
	char db_path[1024];              /* --db, RIGD_DB; default ./rigd.db */
	char host[256];                  /* --listen HOST:PORT, RIGD_LISTEN; default 127.0.0.1:8080 */
	unsigned port;                   /* 0 = pick a free port (printed in the log) */
	enum rig_durability durability;  /* --durability full|process, RIGD_DURABILITY */
	size_t max_body_bytes;           /* --max-body, RIGD_MAX_BODY; default 64 MiB */
	unsigned threads;                /* --threads, RIGD_THREADS; default: the number of cores */
	unsigned workers;                /* --workers, RIGD_WORKERS; default: 4 × cores, at least 8 */
	unsigned connection_timeout_s;   /* --connection-timeout, RIGD_CONNECTION_TIMEOUT; default 30 */
	unsigned max_connections;        /* --max-connections, RIGD_MAX_CONNECTIONS; default 1024 */
	unsigned drain_timeout_s;        /* --drain-timeout, RIGD_DRAIN_TIMEOUT; default 10 */
	long long read_cache_mb;         /* --read-cache-mb, RIGD_READ_CACHE_MB; default 256, 0 = none */
	unsigned housekeeping_s;         /* --housekeeping-interval, RIGD_HOUSEKEEPING_INTERVAL; default 60 */
};

/* Fills cfg from defaults, then the environment, then argv. Returns 0 to run,
 * 1 when --help was printed (exit 0), 2 on a usage error (message on stderr). */
int rig_config_parse(struct rig_config *cfg, int argc, char **argv);

#endif
