/* rigd's configuration: command-line flags, each with a RIGD_* environment
 * variable as its default. Zero means "use the default" in every numeric field.
 */
#ifndef RIG_CONFIG_H
#define RIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "storage/store.h"
#include "storage/store_url.h"

#define RIG_MAX_CORS_ORIGINS 16

/* The URL rigctl and mesh-data use when neither --url nor RIGD_URL is set
 * (RIG_HTTP_DEFAULT_URL of clients/http_client.h, which server/ does not
 * include): rigd's default --listen address. */
#define RIG_CONFIG_CLIENTS_URL "http://127.0.0.1:8080"

/* Longest URL rig_config_url writes, its NUL included. */
#define RIG_CONFIG_URL_MAX 300

struct rig_config {
	/* --store URL, RIGD_STORE, or --db PATH, RIGD_DB, which means the store
	 * sqlite:PATH (rig_config_set_store): where rigd keeps its data; default
	 * rig_store_url_default(), sqlite:./rigd.db */
	struct rig_store_url store;
	/* while parsing: the spelling ("db", "store") that set store in this source */
	const char *store_set_by;
	/* --token-file PATH, RIGD_TOKEN_FILE: where a first start with auth on
	 * writes the bootstrap admin token; default PATH.token for a store that is
	 * the file PATH (sqlite:PATH), none ("") for a store that is not a file */
	char token_file[RIG_STORE_URL_MAX + 8];
	char host[256]; /* --listen HOST:PORT, RIGD_LISTEN; default 127.0.0.1:8080 */
	unsigned port;  /* 0 = pick a free port (printed in the log) */
	/* --health-listen HOST:PORT, RIGD_HEALTH_LISTEN: the probe listener
	 * (health.h); health_host "" when none */
	char health_host[256];
	unsigned health_port;
	/* --durability full|process, RIGD_DURABILITY: full, acknowledged writes
	 * survive power loss; process, a crash of rigd only */
	enum rig_store_durability durability;
	size_t max_body_bytes; /* --max-body, RIGD_MAX_BODY; default 128 MiB */
	/* --memory-budget MB, RIGD_MEMORY_BUDGET: bytes that bodies, their parse and
	 * range streams may hold at once; default half the RAM within [256 MiB, 8 GiB] */
	size_t memory_budget_bytes;
	unsigned threads; /* --threads, RIGD_THREADS; default: the number of cores */
	unsigned workers; /* --workers, RIGD_WORKERS; default: 4 × cores, at least 8 */
	unsigned connection_timeout_s; /* --connection-timeout, RIGD_CONNECTION_TIMEOUT; default 30
					*/
	unsigned max_connections;      /* --max-connections, RIGD_MAX_CONNECTIONS; default 1024 */
	unsigned max_connections_per_ip; /* --max-connections-per-ip, RIGD_MAX_CONNECTIONS_PER_IP;
					    default 64 */
	unsigned header_timeout_s;       /* --header-timeout, RIGD_HEADER_TIMEOUT; default 10 */
	/* --min-body-rate BYTES, RIGD_MIN_BODY_RATE: bytes a second a request body
	 * must bring over every 5-second window (or end); default 16384 */
	size_t min_body_rate;
	unsigned drain_timeout_s; /* --drain-timeout, RIGD_DRAIN_TIMEOUT; default 10 */
	long long read_cache_mb;  /* --read-cache-mb, RIGD_READ_CACHE_MB; default 256, 0 = none */
	unsigned housekeeping_s;  /* --housekeeping-interval, RIGD_HOUSEKEEPING_INTERVAL; default 60
				   */
	/* --history-versions N, RIGD_HISTORY_VERSIONS: past versions of each shot
	 * kept readable (docs/history.md); default 1000 */
	long long history_versions;
	bool auth_off; /* --auth on|off, RIGD_AUTH; default on (off: development only) */
	/* --cors-origin ORIGIN, repeatable (RIGD_CORS_ORIGIN, comma-separated);
	 * none: no CORS headers at all. */
	char cors_origins[RIG_MAX_CORS_ORIGINS][256];
	unsigned n_cors_origins;
	char tls_cert[1024]; /* --tls-cert PEM, RIGD_TLS_CERT; with --tls-key: HTTPS */
	char tls_key[1024];  /* --tls-key PEM, RIGD_TLS_KEY */
	double rate_limit;   /* --rate-limit N, RIGD_RATE_LIMIT: requests/s per token, 0 = none */
};

/* Fills cfg from defaults, then the environment, then argv. Returns 0 to run,
 * 1 when --help or --version was printed (exit 0), 2 on a usage error
 * (message on stderr). */
int rig_config_parse(struct rig_config *cfg, int argc, char **argv);

/* Sets *store from the value of option name, "store" (a store URL) or "db" (a
 * path: the store sqlite:PATH), as --store and --db do; rig_store_url_parse
 * reads the URL. *set_by is the option that set *store before in the same
 * source (the environment, or the command line; NULL for none) and becomes
 * name: the other spelling naming a different store is refused, a repeated
 * one replaces. Returns 0, or -1 with the reason in why ("" for an empty or
 * overlong --db path). */
int rig_config_set_store(struct rig_store_url *store, const char **set_by, const char *name,
			 const char *value, char *why, size_t why_size);

/* Writes to out the URL a client on this machine reaches the server at when
 * it listens on port (the bound one: cfg->port may be 0): https with
 * --tls-cert, the wildcard addresses 0.0.0.0 and :: as their loopback
 * address, an IPv6 address in brackets. */
void rig_config_url(char out[RIG_CONFIG_URL_MAX], const struct rig_config *cfg, unsigned port);

#endif
