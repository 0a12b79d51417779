/* Flags and RIGD_* environment variables of config.h: one table of options
 * (`options[]` below) from which the parsing with its bounds, the RIGD_* names,
 * the defaults, `rigd --help` and docs/configuration.md's option table
 * (`rigd --options-markdown`, compared by tests/e2e/test_options_table.py)
 * all come. */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/context.h"
#include "api/util/membudget.h"
#include "core/err.h"
#include "version/version.h"

/* How a row's value is read and where it goes. */
enum opt_kind {
	OPT_TEXT,     /* a string into a char array of `max` bytes (non-empty) */
	OPT_LISTEN,   /* HOST:PORT into a char[256] host, then an unsigned port */
	OPT_UNSIGNED, /* an integer in [min, max] into an unsigned */
	OPT_SIZE,     /* an integer in [min, max] into a size_t */
	OPT_LLONG,    /* an integer in [min, max] into a long long */
	OPT_MIB,      /* an integer of MiB in [min, max] into a size_t of bytes */
	OPT_DOUBLE,   /* an integer in [min, max] into a double */
	OPT_CHOICE,   /* one of the '|'-separated words of `choices`: its index into an enum */
	OPT_SWITCH,   /* "on" or "off" (`choices`, in that order): a bool, true for the second */
	OPT_ORIGINS,  /* comma-separated origins, repeatable */
	OPT_STORE,    /* --store URL or --db PATH: rig_config_set_store into store */
};

struct option_row {
	const char *name;    /* the flag without "--"; its variable is RIGD_ + NAME_IN_CAPS */
	const char *metavar; /* what the value looks like in --help */
	enum opt_kind kind;
	size_t offset; /* its field in struct rig_config */
	unsigned long long min, max;
	const char *choices;  /* OPT_CHOICE */
	const char *def;      /* the default as set (OPT_TEXT, OPT_LISTEN, numbers); NULL: none
			       * or computed at start (see rig_config_parse) */
	const char *def_text; /* the default as documented */
	const char *help;
};

#define AT(field) offsetof(struct rig_config, field)

/* OPT_LISTEN writes a port right after its host array. */
_Static_assert(offsetof(struct rig_config, port) == offsetof(struct rig_config, host) + 256,
	       "struct rig_config: port follows host[256]");
_Static_assert(offsetof(struct rig_config, health_port) ==
		       offsetof(struct rig_config, health_host) + 256,
	       "struct rig_config: health_port follows health_host[256]");

/* The one list of rigd's options, in --help order. */
static const struct option_row options[] = {
	{"store", "URL", OPT_STORE, AT(store), 0, 0, NULL, NULL, NULL,
	 "where rigd keeps its data, created and migrated on start: a URL of the backend this "
	 "rigd is built with, `sqlite:PATH` (an SQLite file) for SQLite's; any other is refused, "
	 "naming the forms served"},
	{"db", "PATH", OPT_STORE, AT(store), 0, 0, NULL, NULL, "`./rigd.db`",
	 "the same as `--store sqlite:PATH`; given with `--store` (or `RIGD_DB` with "
	 "`RIGD_STORE`), both must name the same store, and a flag overrides either variable"},
	{"token-file", "PATH", OPT_TEXT, AT(token_file), 0,
	 sizeof(((struct rig_config *)0)->token_file), NULL, NULL,
	 "`PATH.token` beside a `sqlite:PATH` store",
	 "where the first start with auth on writes the bootstrap admin token (mode 0600); "
	 "rigctl and mesh-data read the same variable, else the file beside `$RIGD_DB`. A store "
	 "that is not a file has no default: its first start needs this option, unless `rigd "
	 "token create` made a token already"},
	{"listen", "HOST:PORT", OPT_LISTEN, AT(host), 0, 0, NULL, "127.0.0.1:8080",
	 "`127.0.0.1:8080`",
	 "address to listen on; port 0 picks a free port (logged, and said in "
	 "words when stderr is a terminal)"},
	{"health-listen", "HOST:PORT", OPT_LISTEN, AT(health_host), 0, 0, NULL, NULL, "none",
	 "a second listener answering only `/healthz` and `/readyz` (32 connections, no auth), for "
	 "probes that must get through whatever clients hold on the main one"},
	{"durability", "full|process", OPT_CHOICE, AT(durability), 0, 0, "full|process", "full",
	 "`full`",
	 "full: acknowledged edits survive power loss; process: they survive a crash of rigd but "
	 "not of the machine"},
	{"max-body", "BYTES", OPT_SIZE, AT(max_body_bytes), 1, 1ULL << 34, NULL, "134217728",
	 "134217728 (128 MiB)",
	 "larger request bodies get `413 BODY_TOO_LARGE`; lowered (with a "
	 "warning) to an eighth of `--memory-budget`"},
	{"memory-budget", "MB", OPT_MIB, AT(memory_budget_bytes), 1, 1ULL << 24, NULL, NULL,
	 "half the RAM, 256 to 8192",
	 "bytes that request bodies (8 x what has arrived), their "
	 "parsing, frame-range streams, check pages, map-points indexes and diffs' bindings hold "
	 "at once; past it `503 MEMORY_BUSY`"},
	{"threads", "N", OPT_UNSIGNED, AT(threads), 1, 256, NULL, NULL, "the cores",
	 "libmicrohttpd I/O threads (and frame-range workers)"},
	{"workers", "N", OPT_UNSIGNED, AT(workers), 1, 1024, NULL, NULL, "4 x the cores, >= 8",
	 "request handler threads"},
	{"connection-timeout", "S", OPT_UNSIGNED, AT(connection_timeout_s), 1, 86400, NULL, "30",
	 "30", "idle connections are closed after S seconds"},
	{"max-connections", "N", OPT_UNSIGNED, AT(max_connections), 1, 65536, NULL, "1024", "1024",
	 "past it a new connection is answered `503 TOO_MANY_CONNECTIONS` (with `Retry-After: 1`) "
	 "and closed; `/healthz` and `/readyz` are still answered"},
	{"max-connections-per-ip", "N", OPT_UNSIGNED, AT(max_connections_per_ip), 1, 65536, NULL,
	 "64", "64",
	 "open connections from one client address; past it a new one is refused at "
	 "accept (closed, nothing answered)"},
	{"header-timeout", "S", OPT_UNSIGNED, AT(header_timeout_s), 1, 3600, NULL, "10", "10",
	 "a connection's whole header block must arrive within S seconds of its start or its "
	 "previous answer (capped by `--connection-timeout`); also the keep-alive idle limit"},
	{"min-body-rate", "BYTES", OPT_SIZE, AT(min_body_rate), 1, 1ULL << 30, NULL, "16384",
	 "16384",
	 "a request body must bring this many bytes a second over every 5-second window "
	 "(or end within it), else its connection is closed"},
	{"drain-timeout", "S", OPT_UNSIGNED, AT(drain_timeout_s), 1, 3600, NULL, "10", "10",
	 "SIGTERM/SIGINT wait this long for in-flight requests"},
	{"housekeeping-interval", "S", OPT_UNSIGNED, AT(housekeeping_s), 1, 86400, NULL, "60", "60",
	 "seconds between sweeps of expired idempotency keys and locks, and history "
	 "compaction"},
	{"history-versions", "N", OPT_LLONG, AT(history_versions), 1, 1000000000, NULL, "1000",
	 "1000",
	 "past versions of each shot kept readable with `?version`; older ones are "
	 "compacted by housekeeping"},
	{"read-cache-mb", "MB", OPT_LLONG, AT(read_cache_mb), 0, 1ULL << 20, NULL, "256", "256",
	 "decoded shots and prepared skins shared by reads; 0 loads them per request"},
	{"auth", "on|off", OPT_SWITCH, AT(auth_off), 0, 0, "on|off", "on", "`on`",
	 "bearer tokens on every route but `/healthz`, `/readyz`, the error catalogue and "
	 "`/v1/openapi.yaml` / `.json`; `off` trusts `X-Rigd-Actor` and checks nothing (local "
	 "development only; logged as a warning)"},
	{"cors-origin", "ORIGIN", OPT_ORIGINS, AT(cors_origins), 0, 0, NULL, NULL, "none",
	 "repeatable (the variable: comma-separated); browser pages from exactly these origins may "
	 "call the API; none: no CORS headers at all"},
	{"tls-cert", "PEM", OPT_TEXT, AT(tls_cert), 0, sizeof(((struct rig_config *)0)->tls_cert),
	 NULL, NULL, "none",
	 "serve HTTPS (GnuTLS through libmicrohttpd) with this certificate "
	 "chain; needs `--tls-key`"},
	{"tls-key", "PEM", OPT_TEXT, AT(tls_key), 0, sizeof(((struct rig_config *)0)->tls_key),
	 NULL, NULL, "none", "... and this private key, unencrypted"},
	{"rate-limit", "N", OPT_DOUBLE, AT(rate_limit), 0, 1000000, NULL, "0", "0 (none)",
	 "requests per second per token, bursts of 2N; past it `429 RATE_LIMITED` with "
	 "`Retry-After`"},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

/* RIGD_<NAME> for a row: '-' becomes '_', letters capitals. */
static void env_name(char out[64], const char *name)
{
	size_t k = 0;
	memcpy(out, "RIGD_", 5);
	for (; name[k] && k < 58; k++)
		out[5 + k] = name[k] == '-' ? '_' : (char)toupper((unsigned char)name[k]);
	out[5 + k] = '\0';
}

/* ---- --help and the README table ---- */

/* Writes words to f, wrapped at 92 columns with every line but the first
 * indented by `indent` spaces; `col` is where the first starts. */
static void wrap(FILE *f, const char *words, size_t col, size_t indent)
{
	const char *p = words;
	while (*p) {
		size_t len = strcspn(p, " ");
		if (col > indent && col + 1 + len > 92) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		/* backquotes mark code in the docs' table; the terminal shows it plain */
		for (size_t i = 0; i < len; i++)
			if (p[i] != '`')
				fputc(p[i], f), col++;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* Row o's default as documented, into out: def_text, or for --store (NULL
 * there) the default store of this build's backend, from storage/store_url.c. */
static void def_doc(char *out, size_t size, const struct option_row *o)
{
	if (o->def_text)
		snprintf(out, size, "%s", o->def_text);
	else
		snprintf(out, size, "`%s`", rig_store_url_default());
}

static void print_usage(FILE *f)
{
	fputs("usage: rigd [options]\n"
	      "       rigd token create|list|revoke [--store URL | --db PATH] ...\n"
	      "                             manage API tokens in the store, with or without a\n"
	      "                             running server ('rigd token --help')\n"
	      "       rigd --version\n"
	      "\n"
	      "rigd serves rig evaluation over HTTP: shots, layers, skins, atomic edit batches.\n"
	      "Every option can also be set with the environment variable shown.\n"
	      "\n",
	      f);
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_row *o = &options[i];
		char env[64], text[1024], def[128], doc[128];
		env_name(env, o->name);
		def_doc(doc, sizeof doc, o);
		size_t d = 0;
		for (const char *c = doc; *c && d + 1 < sizeof def; c++)
			if (*c != '`')
				def[d++] = *c;
		def[d] = '\0';
		snprintf(text, sizeof text, "%s (%s, %s)", o->help, env, def);
		int col = fprintf(f, "  --%s %s", o->name, o->metavar);
		if (col < 29)
			fprintf(f, "%*s", 29 - col, "");
		wrap(f, text, col < 29 ? 29 : (size_t)col, 29);
	}
	fputs("  --version                  print the version and the build's git commit\n"
	      "  --help                     this text\n"
	      "\n"
	      "Logs are JSON lines on stderr. The first line with \"msg\":\"listening\" gives the\n"
	      "port and the url. With port 0 and stderr a terminal, rigd also says the url in\n"
	      "words, and prints the 'export RIGD_URL=...' line rigctl and mesh-data need when\n"
	      "it is not their default.\n",
	      f);
}

/* docs/configuration.md's option table, rows in table order. */
static void print_markdown(FILE *f)
{
	fputs("| flag | env | default | meaning |\n| --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_row *o = &options[i];
		char env[64], doc[128];
		env_name(env, o->name);
		def_doc(doc, sizeof doc, o);
		fprintf(f, "| `--%s ", o->name);
		for (const char *c = o->metavar; *c; c++)
			fputs(*c == '|' ? "\\|" : (char[]){*c, 0}, f);
		fprintf(f, "` | `%s` | %s | %s |\n", env, doc, o->help);
	}
}

/* ---- reading values ---- */

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

/* A decimal integer in [min, max]. Returns 0 or -1. */
static int parse_integer(unsigned long long *out, const char *v, unsigned long long min,
			 unsigned long long max)
{
	char *end = NULL;
	errno = 0;
	if (!isdigit((unsigned char)v[0]))
		return -1;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n < min || n > max)
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

/* The index of v among choices' '|'-separated words, or -1. */
static int choice_index(const char *choices, const char *v)
{
	size_t n = strlen(v);
	int i = 0;
	for (const char *p = choices; *p; i++) {
		size_t len = strcspn(p, "|");
		if (len == n && !strncmp(p, v, n))
			return i;
		p += len + (p[len] == '|');
	}
	return -1;
}

/* Applies row o's value v to cfg. Returns 0, or -1 (cfg unchanged) with the
 * reason in why when there is more to say than that the value is invalid. */
static int apply(struct rig_config *cfg, const struct option_row *o, const char *v, char *why,
		 size_t why_size)
{
	char *field = (char *)cfg + o->offset;
	why[0] = '\0';
	unsigned long long n = 0;
	bool numeric = o->kind == OPT_UNSIGNED || o->kind == OPT_SIZE || o->kind == OPT_LLONG ||
		       o->kind == OPT_MIB || o->kind == OPT_DOUBLE;
	if (numeric && parse_integer(&n, v, o->min, o->max))
		return -1;
	switch (o->kind) {
	case OPT_TEXT:
		if (!*v || strlen(v) >= o->max)
			return -1;
		rig_strlcpy(field, v, o->max);
		return 0;
	case OPT_LISTEN:
		/* the port follows the host array in struct rig_config */
		return parse_listen(field, 256, (unsigned *)(field + 256), v);
	case OPT_UNSIGNED:
		*(unsigned *)field = (unsigned)n;
		return 0;
	case OPT_SIZE:
		*(size_t *)field = (size_t)n;
		return 0;
	case OPT_LLONG:
		*(long long *)field = (long long)n;
		return 0;
	case OPT_MIB:
		*(size_t *)field = (size_t)n << 20;
		return 0;
	case OPT_DOUBLE:
		*(double *)field = (double)n;
		return 0;
	case OPT_CHOICE:
	case OPT_SWITCH: {
		int i = choice_index(o->choices, v);
		if (i < 0)
			return -1;
		if (o->kind == OPT_SWITCH)
			*(bool *)field = i == 1;
		else /* the one enum option */
			*(enum rig_store_durability *)field = (enum rig_store_durability)i;
		return 0;
	}
	case OPT_ORIGINS:
		return add_cors_origins(cfg, v);
	case OPT_STORE:
		return rig_config_set_store(&cfg->store, &cfg->store_set_by, o->name, v, why,
					    why_size);
	}
	return -1;
}

static const struct option_row *find_option(const char *name)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

int rig_config_parse(struct rig_config *cfg, int argc, char **argv)
{
	memset(cfg, 0, sizeof *cfg);
	char why[600];
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].def && apply(cfg, &options[i], options[i].def, why, sizeof why) != 0)
			return 2; /* a default out of its own bounds: caught by the tests */
	/* The computed defaults (their def_text says how). */
	if (rig_store_url_parse(&cfg->store, rig_store_url_default(), why, sizeof why) != 0) {
		fprintf(stderr, "rigd: the default store: %s\n", why);
		return 2;
	}
	cfg->memory_budget_bytes = rig_membudget_default_bytes();
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	cfg->threads = cores > 0 ? (unsigned)cores : 2;
	cfg->workers = 4 * cfg->threads > 8 ? 4 * cfg->threads : 8;

	for (size_t i = 0; i < N_OPTIONS; i++) {
		char env[64];
		env_name(env, options[i].name);
		const char *v = getenv(env);
		if (v && apply(cfg, &options[i], v, why, sizeof why) != 0) {
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
		if (!strcmp(arg, "--options-markdown")) {
			print_markdown(stdout);
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
		size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		const struct option_row *o = NULL;
		if (len < sizeof name) {
			memcpy(name, arg + 2, len);
			name[len] = '\0';
			o = find_option(name);
		}
		if (!o) {
			fprintf(stderr, "rigd: unknown option '%.*s'\n", (int)(len + 2), arg);
			print_usage(stderr);
			return 2;
		}
		const char *value;
		if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			fprintf(stderr, "rigd: option '--%s' needs a value\n", name);
			return 2;
		}
		if (apply(cfg, o, value, why, sizeof why) != 0) {
			if (why[0])
				fprintf(stderr, "rigd: invalid value for --%s: %s\n", name, why);
			else
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
