/* The `rigd token` subcommands of token_cli.h. */
#include "server/token_cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/http/auth.h"
#include "api/util/textbuf.h"
#include "core/codes.h"
#include "server/config.h"
#include "storage/store.h"
#include "storage/store_url.h"
#include "storage/tokens.h"

static const char usage[] =
	"usage: rigd token create [--store URL | --db PATH] --name NAME --scope SCOPE\n"
	"                         [--scope SCOPE...] [--expires-in SECONDS]\n"
	"       rigd token list   [--store URL | --db PATH]\n"
	"       rigd token revoke [--store URL | --db PATH] TOKEN_ID\n"
	"\n"
	"Manages API tokens in the store directly (the server may be running).\n"
	"SCOPE is read, edit or admin (each includes the ones before it), alone for every\n"
	"project or as SCOPE:PROJECT_ID for one; repeat --scope for several.\n"
	"create prints the token's secret on stdout, once: it is stored only as a hash.\n"
	"The store is rigd's: --store URL or --db PATH (the store sqlite:PATH), else\n"
	"$RIGD_STORE or $RIGD_DB, else rigd's default (rigd --help). rigctl and mesh-data\n"
	"send the token they find in $RIGD_TOKEN (export RIGD_TOKEN=<secret>).\n"
	"\n"
	"Exit codes: 0 done, 1 failed (the store cannot be opened, no such token),\n"
	"2 usage error.\n"
	"\n"
	"Examples:\n"
	"  rigd token create --db /var/lib/rigd/rigd.db --name farm --scope read\n"
	"  export RIGD_TOKEN=$(rigd token create --name ana --scope edit:demo)\n"
	"  rigd token list\n"
	"  rigd token revoke t-81d44511f062\n";

struct args {
	struct rig_store_url store;
	const char *name, *id;
	const char *scopes[RIG_TOKEN_MAX_SCOPES + 1];
	size_t n_scopes;
	long long expires_in;
	bool help; /* --help or -h: print the usage, do nothing else */
};

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "rigd token: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", usage);
	return 2;
}

/* Sets the store from option name ("db" or "store") as rigd does; set_by as
 * rig_config_set_store's. Returns 0 or a usage error's exit code. */
static int set_store(struct args *a, const char **set_by, const char *name, const char *value,
		     const char *shown)
{
	char why[600];
	if (rig_config_set_store(&a->store, set_by, name, value, why, sizeof why) == 0)
		return 0;
	fprintf(stderr, "rigd token: invalid value for %s%s%s\n%s", shown, why[0] ? ": " : "", why,
		usage);
	return 2;
}

static int parse(struct args *a, int argc, char **argv, bool wants_id)
{
	memset(a, 0, sizeof *a);
	char why[600];
	if (rig_store_url_parse(&a->store, rig_store_url_default(), why, sizeof why) != 0)
		return usage_error(why, NULL);
	const char *set_by = NULL;
	int rc = 0;
	if (getenv("RIGD_DB"))
		rc = set_store(a, &set_by, "db", getenv("RIGD_DB"), "RIGD_DB");
	if (!rc && getenv("RIGD_STORE"))
		rc = set_store(a, &set_by, "store", getenv("RIGD_STORE"), "RIGD_STORE");
	if (rc)
		return rc;
	set_by = NULL; /* the command line overrides the environment */
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(arg, "--db") || !strcmp(arg, "--store") || !strcmp(arg, "--name") ||
		    !strcmp(arg, "--scope") || !strcmp(arg, "--expires-in")) {
			if (!value)
				return usage_error("missing value for", arg);
			i++;
			if (!strcmp(arg, "--db") || !strcmp(arg, "--store")) {
				rc = set_store(a, &set_by, arg + 2, value, arg);
				if (rc)
					return rc;
			} else if (!strcmp(arg, "--name")) {
				a->name = value;
			} else if (!strcmp(arg, "--scope")) {
				if (a->n_scopes == RIG_TOKEN_MAX_SCOPES)
					return usage_error("too many --scope options", NULL);
				a->scopes[a->n_scopes++] = value;
			} else {
				char *end = NULL;
				errno = 0;
				a->expires_in = strtoll(value, &end, 10);
				if (errno || *end || a->expires_in < 1 ||
				    a->expires_in > RIG_TOKEN_MAX_EXPIRES_IN_SECONDS)
					return usage_error(
						"--expires-in needs 1 to 316224000 seconds"
						" (10 years), not",
						value);
			}
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			a->help = true;
		} else if (wants_id && !a->id && arg[0] != '-') {
			a->id = arg;
		} else {
			return usage_error("unexpected argument", arg);
		}
	}
	return 0;
}

static struct rig_store *open_store(const struct rig_store_url *url)
{
	char err[512];
	struct rig_store_options opt = {.url = url->url, .pool_size = 1};
	struct rig_store *store = rig_store_open(&opt, err, sizeof err);
	if (!store)
		fprintf(stderr, "rigd token: %s\n", err);
	return store;
}

static int create(struct args *a)
{
	if (!a->name || !a->name[0] || strlen(a->name) > RIG_TOKEN_NAME_MAX ||
	    !rig_utf8_is_clean(a->name))
		return usage_error("--name needs 1 to 128 bytes of UTF-8 text", NULL);
	char scopes[RIG_TOKEN_SCOPES_MAX], err[160];
	size_t bad;
	if (rig_scopes_canonical(scopes, a->scopes, a->n_scopes, &bad, err, sizeof err))
		return usage_error(err, NULL);
	struct rig_store *store = open_store(&a->store);
	if (!store)
		return 1;
	struct rig_tx *tx;
	struct rig_token t;
	char secret[RIG_TOKEN_SECRET_MAX];
	int rc = rig_store_write(store, &tx);
	if (!rc)
		rc = rig_auth_token_create(tx, a->name, scopes, a->expires_in > 0,
					   (long long)time(NULL) + a->expires_in, "cli", &t,
					   secret);
	if (!rc)
		rc = rig_auth_audit_offline(tx, "token.create", "cli", &t);
	if (!rc && rig_tx_commit(tx) != 0)
		rc = -RIG_STORAGE_UNAVAILABLE;
	rig_tx_end(tx);
	rig_store_close(store);
	if (rc) {
		fprintf(stderr, "rigd token: cannot create the token (%s)\n",
			rig_code_name((enum rig_code) - rc));
		return 1;
	}
	printf("%s\n", secret);
	explicit_bzero(secret, sizeof secret);
	fprintf(stderr, "created token %s '%s' with scopes '%s'; its secret is printed once\n",
		t.id, t.name, scopes);
	return 0;
}

static int print_token(void *ctx, const struct rig_token *t)
{
	char expires[32] = "never";
	if (t->has_expiry) {
		time_t when = (time_t)t->expires_unix;
		struct tm tm;
		gmtime_r(&when, &tm);
		strftime(expires, sizeof expires, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	printf("%-16s %-20s %-8s %-21s %s\n", t->id, t->name, t->revoked ? "revoked" : "live",
	       expires, t->scopes);
	return 0;
}

static int list(struct args *a)
{
	struct rig_store *store = open_store(&a->store);
	if (!store)
		return 1;
	struct rig_tx *tx = rig_store_read(store);
	printf("%-16s %-20s %-8s %-21s %s\n", "token", "name", "state", "expires", "scopes");
	int rc = rig_token_list(tx, 0, (size_t)-1 >> 1, print_token, NULL);
	rig_tx_end(tx);
	rig_store_close(store);
	if (rc) {
		fprintf(stderr, "rigd token: cannot list tokens (%s)\n",
			rig_code_name((enum rig_code) - rc));
		return 1;
	}
	return 0;
}

static int revoke(struct args *a)
{
	if (!a->id)
		return usage_error("revoke needs a TOKEN_ID", NULL);
	struct rig_store *store = open_store(&a->store);
	if (!store)
		return 1;
	struct rig_tx *tx;
	struct rig_token t;
	int rc = rig_store_write(store, &tx);
	if (!rc)
		rc = rig_token_get(tx, a->id, &t);
	if (!rc)
		rc = rig_token_revoke(tx, a->id);
	if (!rc)
		rc = rig_auth_audit_offline(tx, "token.revoke", "cli", &t);
	if (!rc && rig_tx_commit(tx) != 0)
		rc = -RIG_STORAGE_UNAVAILABLE;
	rig_tx_end(tx);
	rig_store_close(store);
	if (rc) {
		fprintf(stderr, "rigd token: cannot revoke '%s' (%s)\n", a->id,
			rc == -RIG_NOT_FOUND ? "no such token"
					     : rig_code_name((enum rig_code) - rc));
		return 1;
	}
	fprintf(stderr, "revoked token %s\n", a->id);
	return 0;
}

int rig_token_cli(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	struct args a;
	bool is_revoke = !strcmp(argv[1], "revoke");
	int rc = parse(&a, argc, argv, is_revoke);
	if (rc)
		return rc;
	if (a.help) { /* `rigd token create --help`: the usage covers every subcommand */
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "create"))
		return create(&a);
	if (!strcmp(argv[1], "list"))
		return list(&a);
	if (is_revoke)
		return revoke(&a);
	return usage_error("unknown subcommand", argv[1]);
}
