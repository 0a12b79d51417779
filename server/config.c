/* Flags and RIGD_* environment variables of config.h. */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/context.h"
#include "api/util/membudget.h"
#include "core/err.h"
#include "version/version.h"

/* A format: the store forms this build serves and its default store. */
static const char usage[] =
	"usage: rigd [options]\n"
	"       rigd token create|list|revoke [--store URL | --db PATH] ...\n"
	"                             manage API tokens in the store, with or without a\n"
	"                             running server ('rigd token --help')\n"
	"       rigd --version\n"
	"\n"
	"rigd serves rig evaluation over HTTP: shots, layers, skins, atomic edit batches.\n"
	"Every option can also be set with the environment variable shown.\n"
	"\n"
	"  --store URL                where rigd keeps its data, created when missing: %s\n"
	"                             (RIGD_STORE, %s)\n"
	"  --db PATH                  the store sqlite:PATH, an SQLite file (RIGD_DB); given with\n"
	"                             --store, both must name the same store\n"
	"  --token-file PATH          where the first start writes the bootstrap admin token,\n"
	"                             mode 0600 (RIGD_TOKEN_FILE, PATH.token beside a store that\n"
	"                             is the file PATH; a store of another kind has no default)\n"
	"  --listen HOST:PORT         address to listen on; port 0 picks a free one\n"
	"                             (RIGD_LISTEN, 127.0.0.1:8080)\n"
	"  --health-listen HOST:PORT  a second listener answering only /healthz and /readyz,\n"
	"                             reachable whatever clients hold on the main one\n"
	"                             (RIGD_HEALTH_LISTEN, none)\n"
	"  --durability full|process  full: acknowledged edits survive power loss; process:\n"
	"                             they survive a crash of rigd but not of the machine\n"
	"                             (RIGD_DURABILITY, full)\n"
	"  --max-body BYTES           largest request body; larger is 413 (RIGD_MAX_BODY, "
	"134217728)\n"
	"  --memory-budget MB         memory that request bodies, their parsing and frame-range\n"
	"                             streams may hold at once; past it requests are answered 503\n"
	"                             MEMORY_BUSY (RIGD_MEMORY_BUDGET, half the RAM, 256 to 8192)\n"
	"  --threads N                HTTP I/O threads and frame workers (RIGD_THREADS, cores)\n"
	"  --workers N                request handler threads (RIGD_WORKERS, 4 x cores, >= 8)\n"
	"  --connection-timeout S     idle seconds before a connection is closed\n"
	"                             (RIGD_CONNECTION_TIMEOUT, 30)\n"
	"  --max-connections N        concurrent connections; past it a new connection is "
	"answered\n"
	"                             503 TOO_MANY_CONNECTIONS and closed (RIGD_MAX_CONNECTIONS, "
	"1024)\n"
	"  --max-connections-per-ip N concurrent connections from one client address; past it a "
	"new\n"
	"                             one is refused at accept (RIGD_MAX_CONNECTIONS_PER_IP, 64)\n"
	"  --header-timeout S         seconds a connection may take to send a request's whole "
	"header\n"
	"                             block, counted from the connection (or its previous "
	"answer);\n"
	"                             also bounds keep-alive idling (RIGD_HEADER_TIMEOUT, 10)\n"
	"  --min-body-rate BYTES      a request body must bring this many bytes a second over\n"
	"                             every 5 s (or end), else its connection is closed\n"
	"                             (RIGD_MIN_BODY_RATE, 16384)\n"
	"  --drain-timeout S          on SIGTERM/SIGINT, seconds to let in-flight requests finish\n"
	"                             (RIGD_DRAIN_TIMEOUT, 10)\n"
	"  --housekeeping-interval S  seconds between sweeps of expired idempotency keys\n"
	"                             (RIGD_HOUSEKEEPING_INTERVAL, 60)\n"
	"  --history-versions N       versions of each shot kept readable with ?version; older\n"
	"                             ones are compacted by housekeeping (RIGD_HISTORY_VERSIONS,\n"
	"                             1000)\n"
	"  --read-cache-mb MB         memory for decoded shots and prepared skins shared by\n"
	"                             reads; 0 loads them per request (RIGD_READ_CACHE_MB, 256)\n"
	"  --auth on|off              on: every request but /healthz, /readyz, the error "
	"catalogue\n"
	"                             and the OpenAPI document needs a bearer token; off: no\n"
	"                             checks, for local development only (RIGD_AUTH, on)\n"
	"  --cors-origin ORIGIN       allow browser pages from ORIGIN (repeatable; "
	"RIGD_CORS_ORIGIN,\n"
	"                             comma-separated); none: no cross-origin access\n"
	"  --tls-cert PEM             serve HTTPS with this certificate chain (RIGD_TLS_CERT);\n"
	"                             needs --tls-key too\n"
	"  --tls-key PEM              ... and this private key, unencrypted (RIGD_TLS_KEY)\n"
	"  --rate-limit N             requests per second per token, bursts of 2N; 0: unlimited\n"
	"                             (RIGD_RATE_LIMIT, 0)\n"
	"  --version                  print the version and the build's git commit\n"
	"  --help                     this text\n"
	"\n"
	"Logs are JSON lines on stderr. The first line with \"msg\":\"listening\" gives the\n"
	"port and the url. With port 0 and stderr a terminal, rigd also says the url in\n"
	"words, and prints the 'export RIGD_URL=...' line rigctl and mesh-data need when\n"
	"it is not their default.\n";

/* Prints the usage with this build's store forms and default store. */
static void print_usage(FILE *f)
{
	char forms[256];
	rig_store_url_forms(forms, sizeof forms);
	fprintf(f, usage, forms, rig_store_url_default());
}

/* HOST:PORT into host (host_size bytes) and *port. Returns 0 or -1. */
static int parse_listen(char *host, size_t host_size, unsigned *port, const char *v)
{
	const char *colon = strrchr(v, ':');
	if (!colon || colon == v || (size_t)(colon - v) >= host_size)
		return -1;
	char *end = NULL;
	errno = 0;
	unsigned long n = strtoul(colon + 1, &end, 10);
	if (errno || !colon[1] || *end || n > 65535)
		return -1;
	memcpy(host, v, (size_t)(colon - v));
	host[colon - v] = '\0';
	*port = (unsigned)n;
	return 0;
}

static int parse_uint(unsigned long long *out, const char *v, unsigned long long max)
{
	char *end = NULL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || !*v || *end || n == 0 || n > max || v[0] == '-')
		return -1;
	*out = n;
	return 0;
}

/* Adds each comma-separated origin of v ("scheme://host[:port]", no path). */
static int add_cors_origins(struct rig_config *cfg, const char *v)
{
	while (*v) {
		size_t len = strcspn(v, ",");
		if (len == 0 || len >= sizeof cfg->cors_origins[0] ||
		    cfg->n_cors_origins == RIG_MAX_CORS_ORIGINS)
			return -1;
		char *o = cfg->cors_origins[cfg->n_cors_origins];
		memcpy(o, v, len);
		o[len] = '\0';
		const char *host = strstr(o, "://");
		if (!host || host == o || !host[3] || strchr(host + 3, '/') || strpbrk(o, " \t*"))
			return -1;
		cfg->n_cors_origins++;
		v += len;
		if (*v == ',')
			v++;
	}
	return 0;
}

/* Applies one setting by its flag name (without "--"). Returns 0, or -1 with
 * the reason in why when there is more to say than that the value is invalid. */
static int apply(struct rig_config *cfg, const char *name, const char *v, char *why,
		 size_t why_size)
{
	unsigned long long n;
	why[0] = '\0';
	if (!strcmp(name, "db") || !strcmp(name, "store")) {
		return rig_config_set_store(&cfg->store, &cfg->store_set_by, name, v, why,
					    why_size);
	} else if (!strcmp(name, "token-file")) {
		if (!*v || strlen(v) >= sizeof cfg->token_file)
			return -1;
		rig_strlcpy(cfg->token_file, v, sizeof cfg->token_file);
	} else if (!strcmp(name, "listen")) {
		return parse_listen(cfg->host, sizeof cfg->host, &cfg->port, v);
	} else if (!strcmp(name, "health-listen")) {
		return parse_listen(cfg->health_host, sizeof cfg->health_host, &cfg->health_port,
				    v);
	} else if (!strcmp(name, "durability")) {
		if (!strcmp(v, "full"))
			cfg->durability = RIG_STORE_DURABILITY_FULL;
		else if (!strcmp(v, "process"))
			cfg->durability = RIG_STORE_DURABILITY_PROCESS;
		else
			return -1;
	} else if (!strcmp(name, "max-body")) {
		if (parse_uint(&n, v, 1ULL << 34))
			return -1;
		cfg->max_body_bytes = (size_t)n;
	} else if (!strcmp(name, "memory-budget")) {
		if (parse_uint(&n, v, 1ULL << 24))
			return -1;
		cfg->memory_budget_bytes = (size_t)n << 20;
	} else if (!strcmp(name, "threads")) {
		if (parse_uint(&n, v, 256))
			return -1;
		cfg->threads = (unsigned)n;
	} else if (!strcmp(name, "workers")) {
		if (parse_uint(&n, v, 1024))
			return -1;
		cfg->workers = (unsigned)n;
	} else if (!strcmp(name, "connection-timeout")) {
		if (parse_uint(&n, v, 86400))
			return -1;
		cfg->connection_timeout_s = (unsigned)n;
	} else if (!strcmp(name, "max-connections")) {
		if (parse_uint(&n, v, 65536))
			return -1;
		cfg->max_connections = (unsigned)n;
	} else if (!strcmp(name, "max-connections-per-ip")) {
		if (parse_uint(&n, v, 65536))
			return -1;
		cfg->max_connections_per_ip = (unsigned)n;
	} else if (!strcmp(name, "header-timeout")) {
		if (parse_uint(&n, v, 3600))
			return -1;
		cfg->header_timeout_s = (unsigned)n;
	} else if (!strcmp(name, "min-body-rate")) {
		if (parse_uint(&n, v, 1ULL << 30))
			return -1;
		cfg->min_body_rate = (size_t)n;
	} else if (!strcmp(name, "drain-timeout")) {
		if (parse_uint(&n, v, 3600))
			return -1;
		cfg->drain_timeout_s = (unsigned)n;
	} else if (!strcmp(name, "read-cache-mb")) {
		if (!strcmp(v, "0"))
			cfg->read_cache_mb =
				0; /* parse_uint refuses 0; here it turns sharing off */
		else if (parse_uint(&n, v, 1ULL << 20))
			return -1;
		else
			cfg->read_cache_mb = (long long)n;
	} else if (!strcmp(name, "housekeeping-interval")) {
		if (parse_uint(&n, v, 86400))
			return -1;
		cfg->housekeeping_s = (unsigned)n;
	} else if (!strcmp(name, "history-versions")) {
		if (parse_uint(&n, v, 1000000000))
			return -1;
		cfg->history_versions = (long long)n;
	} else if (!strcmp(name, "auth")) {
		if (!strcmp(v, "on"))
			cfg->auth_off = false;
		else if (!strcmp(v, "off"))
			cfg->auth_off = true;
		else
			return -1;
	} else if (!strcmp(name, "cors-origin")) {
		return add_cors_origins(cfg, v);
	} else if (!strcmp(name, "tls-cert")) {
		if (!*v || strlen(v) >= sizeof cfg->tls_cert)
			return -1;
		rig_strlcpy(cfg->tls_cert, v, sizeof cfg->tls_cert);
	} else if (!strcmp(name, "tls-key")) {
		if (!*v || strlen(v) >= sizeof cfg->tls_key)
			return -1;
		rig_strlcpy(cfg->tls_key, v, sizeof cfg->tls_key);
	} else if (!strcmp(name, "rate-limit")) {
		if (!strcmp(v, "0"))
			cfg->rate_limit = 0;
		else if (parse_uint(&n, v, 1000000))
			return -1;
		else
			cfg->rate_limit = (double)n;
	} else {
		return -2;
	}
	return 0;
}

static const char *const names[] = {"db",
				    "store",
				    "token-file",
				    "listen",
				    "health-listen",
				    "durability",
				    "max-body",
				    "memory-budget",
				    "threads",
				    "workers",
				    "connection-timeout",
				    "max-connections",
				    "max-connections-per-ip",
				    "header-timeout",
				    "min-body-rate",
				    "drain-timeout",
				    "housekeeping-interval",
				    "history-versions",
				    "read-cache-mb",
				    "auth",
				    "cors-origin",
				    "tls-cert",
				    "tls-key",
				    "rate-limit"};

int rig_config_parse(struct rig_config *cfg, int argc, char **argv)
{
	memset(cfg, 0, sizeof *cfg);
	char why[600];
	if (rig_store_url_parse(&cfg->store, rig_store_url_default(), why, sizeof why) != 0) {
		fprintf(stderr, "rigd: the default store: %s\n", why);
		return 2;
	}
	strcpy(cfg->host, "127.0.0.1");
	cfg->port = 8080;
	cfg->durability = RIG_STORE_DURABILITY_FULL;
	cfg->max_body_bytes = 128u << 20; /* a 1,048,576-vertex skin is about 88 MiB of JSON */
	cfg->memory_budget_bytes = rig_membudget_default_bytes();
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	cfg->threads = cores > 0 ? (unsigned)cores : 2;
	cfg->workers = 4 * cfg->threads > 8 ? 4 * cfg->threads : 8;
	cfg->connection_timeout_s = 30;
	cfg->read_cache_mb = 256;
	cfg->max_connections = 1024;
	cfg->max_connections_per_ip = 64;
	cfg->header_timeout_s = 10;
	cfg->min_body_rate = 16384;
	cfg->drain_timeout_s = 10;
	cfg->housekeeping_s = 60;
	cfg->history_versions = RIG_HISTORY_VERSIONS_DEFAULT;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char env[64] = "RIGD_";
		for (size_t k = 0; names[i][k] && k < 50; k++)
			env[5 + k] = names[i][k] == '-' ? '_'
							: (char)toupper((unsigned char)names[i][k]);
		const char *v = getenv(env);
		if (v && apply(cfg, names[i], v, why, sizeof why) != 0) {
			if (why[0])
				fprintf(stderr, "rigd: invalid value for %s: %s\n", env, why);
			else
				fprintf(stderr, "rigd: invalid value '%s' for %s\n", v, env);
			return 2;
		}
	}
	cfg->store_set_by = NULL; /* the command line overrides the environment */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			print_usage(stdout);
			return 1;
		}
		if (!strcmp(arg, "--version")) {
			rig_version_print(stdout, "rigd");
			return 1;
		}
		if (strncmp(arg, "--", 2) != 0) {
			fprintf(stderr, "rigd: unexpected argument '%s'\n", arg);
			print_usage(stderr);
			return 2;
		}
		char name[64];
		const char *eq = strchr(arg, '=');
		const char *value;
		size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (len >= sizeof name) {
			fprintf(stderr, "rigd: unknown option '%s'\n", arg);
			return 2;
		}
		memcpy(name, arg + 2, len);
		name[len] = '\0';
		bool known = false;
		for (size_t k = 0; k < sizeof names / sizeof names[0] && !known; k++)
			known = strcmp(names[k], name) == 0;
		if (!known) {
			fprintf(stderr, "rigd: unknown option '--%s'\n", name);
			print_usage(stderr);
			return 2;
		}
		if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			fprintf(stderr, "rigd: option '--%s' needs a value\n", name);
			return 2;
		}
		int rc = apply(cfg, name, value, why, sizeof why);
		if (rc == -2) {
			fprintf(stderr, "rigd: unknown option '--%s'\n", name);
			print_usage(stderr);
			return 2;
		}
		if (rc && why[0]) {
			fprintf(stderr, "rigd: invalid value for --%s: %s\n", name, why);
			return 2;
		}
		if (rc) {
			fprintf(stderr, "rigd: invalid value '%s' for --%s\n", value, name);
			return 2;
		}
	}
	if (!cfg->token_file[0] && cfg->store.is_file)
		snprintf(cfg->token_file, sizeof cfg->token_file, "%s.token", cfg->store.address);
	if (!cfg->tls_cert[0] != !cfg->tls_key[0]) {
		fprintf(stderr, "rigd: --tls-cert and --tls-key go together (HTTPS needs both the"
				" certificate and its private key)\n");
		return 2;
	}
	return 0;
}

void rig_config_url(char out[RIG_CONFIG_URL_MAX], const struct rig_config *cfg, unsigned port)
{
	const char *host = cfg->host;
	if (!strcmp(host, "0.0.0.0"))
		host = "127.0.0.1";
	else if (!strcmp(host, "::"))
		host = "::1";
	bool v6 = strchr(host, ':') != NULL;
	snprintf(out, RIG_CONFIG_URL_MAX, "%s://%s%s%s:%u", cfg->tls_cert[0] ? "https" : "http",
		 v6 ? "[" : "", host, v6 ? "]" : "", port);
}
