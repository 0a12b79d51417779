/* rigctl: the rigd API from a terminal (SPEC §9). This file holds the
 * command table, parses the command line against it and against the options
 * of rigctl_options.h (whose rows it lays out as rig_ctl_options), prints a
 * --help page (its text is rigctl_help.c's, its options the rows') or the
 * README's options table, and holds the helpers every command uses (calls,
 * paged lists, option values); the commands live in rigctl_resources.c,
 * rigctl_edit.c, rigctl_frames.c, rigctl_plans.c, rigctl_locks.c,
 * rigctl_diff.c, rigctl_history.c, rigctl_constraints.c, rigctl_pins.c,
 * rigctl_authoring.c and rigctl_interchange.c.
 */
#include "clients/rigctl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/output.h"
#include "clients/report.h"
#include "version/version.h"

struct command {
	const char *name;
	const char *alias; /* another spelling of name, or NULL */
	const char *verb;  /* NULL: the command takes no verb */
	rig_arg_cmds bit;
	size_t min_args, max_args;
	const char *needs; /* what too few positional words lack */
	int (*run)(struct rig_ctl *c);
	const struct rig_ctl_help *help; /* 'rigctl COMMAND [VERB] --help' (rigctl_help.c) */
};

#define ID "an ID"
#define FILE_ARG "a FILE (or '-' for stdin)"
#define PLAN_ID "a PLAN_ID"
#define LOCK_ID "a LOCK_ID"

static const struct command commands[] = {
	{"projects", NULL, "list", RIG_CTL_PROJECTS_LIST, 0, 0, NULL, rig_ctl_projects,
	 &rig_ctl_help_projects},
	{"projects", NULL, "create", RIG_CTL_PROJECTS_CREATE, 1, 1, "a NAME", rig_ctl_projects,
	 &rig_ctl_help_projects},
	{"projects", NULL, "show", RIG_CTL_PROJECTS_SHOW, 1, 1, ID, rig_ctl_projects,
	 &rig_ctl_help_projects},
	{"projects", NULL, "delete", RIG_CTL_PROJECTS_DELETE, 1, 1, ID, rig_ctl_projects,
	 &rig_ctl_help_projects},
	{"shots", NULL, "list", RIG_CTL_SHOTS_LIST, 0, 0, NULL, rig_ctl_shots, &rig_ctl_help_shots},
	{"shots", NULL, "create", RIG_CTL_SHOTS_CREATE, 1, 1, "a NAME", rig_ctl_shots,
	 &rig_ctl_help_shots},
	{"shots", NULL, "show", RIG_CTL_SHOTS_SHOW, 1, 1, ID, rig_ctl_shots, &rig_ctl_help_shots},
	{"shots", NULL, "delete", RIG_CTL_SHOTS_DELETE, 1, 1, ID, rig_ctl_shots,
	 &rig_ctl_help_shots},
	{"layers", NULL, NULL, RIG_CTL_LAYERS, 0, 1, NULL, rig_ctl_layers, &rig_ctl_help_layers},
	{"edit", NULL, NULL, RIG_CTL_EDIT, 1, 1, FILE_ARG, rig_ctl_edit, &rig_ctl_help_edit},
	{"receipts", NULL, NULL, RIG_CTL_RECEIPTS, 0, 1, NULL, rig_ctl_receipts,
	 &rig_ctl_help_receipts},
	{"revert", NULL, NULL, RIG_CTL_REVERT, 1, 1, "a RECEIPT_ID", rig_ctl_revert,
	 &rig_ctl_help_revert},
	{"frames", NULL, NULL, RIG_CTL_FRAMES, 0, 0, NULL, rig_ctl_frames, &rig_ctl_help_frames},
	{"plan", "plans", "create", RIG_CTL_PLAN_CREATE, 1, 1, FILE_ARG, rig_ctl_plans,
	 &rig_ctl_help_plan},
	{"plan", "plans", "show", RIG_CTL_PLAN_SHOW, 1, 1, PLAN_ID, rig_ctl_plans,
	 &rig_ctl_help_plan},
	{"plan", "plans", "list", RIG_CTL_PLAN_LIST, 0, 0, NULL, rig_ctl_plans, &rig_ctl_help_plan},
	{"plan", "plans", "validate", RIG_CTL_PLAN_VALIDATE, 1, 1, PLAN_ID, rig_ctl_plans,
	 &rig_ctl_help_plan},
	{"plan", "plans", "revise", RIG_CTL_PLAN_REVISE, 2, 2, "a PLAN_ID and " FILE_ARG,
	 rig_ctl_plans, &rig_ctl_help_plan},
	{"plan", "plans", "apply", RIG_CTL_PLAN_APPLY, 1, 1, PLAN_ID, rig_ctl_plans,
	 &rig_ctl_help_plan},
	{"plan", "plans", "delete", RIG_CTL_PLAN_DELETE, 1, 1, PLAN_ID, rig_ctl_plans,
	 &rig_ctl_help_plan},
	{"lock", "locks", "acquire", RIG_CTL_LOCK_ACQUIRE, 1, RIG_CTL_MAX_WORDS - 2,
	 "at least one LAYER_ID", rig_ctl_locks, &rig_ctl_help_lock},
	{"lock", "locks", "renew", RIG_CTL_LOCK_RENEW, 1, 1, LOCK_ID, rig_ctl_locks,
	 &rig_ctl_help_lock},
	{"lock", "locks", "release", RIG_CTL_LOCK_RELEASE, 1, 1, LOCK_ID, rig_ctl_locks,
	 &rig_ctl_help_lock},
	{"lock", "locks", "list", RIG_CTL_LOCK_LIST, 0, 0, NULL, rig_ctl_locks, &rig_ctl_help_lock},
	{"diff", NULL, NULL, RIG_CTL_DIFF, 1, 1, "a SHOT_ID", rig_ctl_diff, &rig_ctl_help_diff},
	{"constraints", NULL, NULL, RIG_CTL_CONSTRAINTS, 1, 1, "a SHOT_ID", rig_ctl_constraints,
	 &rig_ctl_help_constraints},
	{"constraint", NULL, "put", RIG_CTL_CONSTRAINT_PUT, 1, 1, "a SHOT_ID", rig_ctl_constraints,
	 &rig_ctl_help_constraint},
	{"constraint", NULL, "delete", RIG_CTL_CONSTRAINT_DELETE, 1, 1, "a SHOT_ID",
	 rig_ctl_constraints, &rig_ctl_help_constraint},
	{"pin", "pins", "add", RIG_CTL_PIN_ADD, 0, 0, NULL, rig_ctl_pins, &rig_ctl_help_pin},
	{"pin", "pins", "move", RIG_CTL_PIN_MOVE, 0, 0, NULL, rig_ctl_pins, &rig_ctl_help_pin},
	{"pin", "pins", "key", RIG_CTL_PIN_KEY, 0, 0, NULL, rig_ctl_pins, &rig_ctl_help_pin},
	{"pin", "pins", "delete", RIG_CTL_PIN_DELETE, 0, 0, NULL, rig_ctl_pins, &rig_ctl_help_pin},
	{"pin", "pins", "list", RIG_CTL_PIN_LIST, 0, 0, NULL, rig_ctl_pins, &rig_ctl_help_pin},
	{"tessellate", NULL, NULL, RIG_CTL_TESSELLATE, 0, 0, NULL, rig_ctl_authoring,
	 &rig_ctl_help_tessellate},
	{"weights", NULL, "auto", RIG_CTL_WEIGHTS_AUTO, 0, 0, NULL, rig_ctl_authoring,
	 &rig_ctl_help_weights},
	{"weights", NULL, "paint", RIG_CTL_WEIGHTS_PAINT, 0, 0, NULL, rig_ctl_authoring,
	 &rig_ctl_help_weights},
	{"weights", NULL, "set", RIG_CTL_WEIGHTS_SET, 0, 0, NULL, rig_ctl_authoring,
	 &rig_ctl_help_weights},
	{"rig", NULL, "auto", RIG_CTL_RIG_AUTO, 0, 0, NULL, rig_ctl_authoring, &rig_ctl_help_rig},
	{"bones", NULL, "suggest", RIG_CTL_BONES_SUGGEST, 0, 0, NULL, rig_ctl_authoring,
	 &rig_ctl_help_bones},
	{"import", NULL, NULL, RIG_CTL_IMPORT, 1, 1, FILE_ARG, rig_ctl_import,
	 &rig_ctl_help_import},
	{"export", NULL, NULL, RIG_CTL_EXPORT, 0, 0, NULL, rig_ctl_export, &rig_ctl_help_export},
};

#undef ID
#undef FILE_ARG
#undef PLAN_ID
#undef LOCK_ID

#define N_COMMANDS (sizeof commands / sizeof commands[0])

const struct rig_arg_spec rig_ctl_options[RIG_CTL_O_COUNT] = {
#define RIG_CTL_OPTION_ROW(id, ...) [RIG_CTL_O_##id] = {__VA_ARGS__},
	RIG_CTL_OPTIONS(RIG_CTL_OPTION_ROW)
#undef RIG_CTL_OPTION_ROW
};

/* ---- helpers for the commands ---- */

const char *rig_ctl_opt(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].text;
}

bool rig_ctl_flag(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].given;
}

int rig_ctl_usage(const char *fmt, ...)
{
	va_list ap;
	fputs(RIG_CTL_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" RIG_CTL_PROG " --help'.\n", stderr);
	return RIG_EXIT_USAGE;
}

long long rig_ctl_int(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].n;
}

double rig_ctl_number(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].x;
}

int rig_ctl_numbers(double *out, size_t n, const struct rig_ctl *c, enum rig_ctl_opt o)
{
	static const char *const counts[] = {"no numbers", "one number", "two numbers",
					     "three numbers", "four numbers"};
	const char *text = rig_ctl_opt(c, o), *p = text;
	for (size_t k = 0; k < n; k++) {
		char *end = NULL;
		out[k] = strtod(p, &end);
		bool sep_ok = k + 1 < n ? *end == ',' : *end == '\0';
		if (end == p || !sep_ok || !isfinite(out[k]))
			return rig_ctl_usage(
				"--%s '%s' is not %s %s", rig_ctl_options[o].name, text,
				n < sizeof counts / sizeof counts[0] ? counts[n] : "numbers",
				rig_ctl_options[o].metavar);
		p = end + 1;
	}
	return RIG_EXIT_OK;
}

json_t *rig_ctl_text_json(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	const char *text = rig_ctl_opt(c, o);
	json_t *s = json_string(text);
	if (!s)
		rig_ctl_usage("--%s '%s' is not valid UTF-8", rig_ctl_options[o].name, text);
	return s;
}

int rig_ctl_expected_version(const struct rig_ctl *c, json_t *body)
{
	if (rig_ctl_opt(c, RIG_CTL_O_EXPECTED_VERSION) &&
	    json_object_set_new(body, "expectedVersion",
				json_integer(rig_ctl_int(c, RIG_CTL_O_EXPECTED_VERSION))) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

int rig_ctl_fence_opts(const struct rig_ctl *c, json_t *body)
{
	const char *lock_id = rig_ctl_opt(c, RIG_CTL_O_LOCK_ID);
	if (!lock_id != !rig_ctl_opt(c, RIG_CTL_O_FENCING_TOKEN))
		return rig_ctl_usage("--lock-id and --fencing-token go together");
	if (!lock_id)
		return RIG_EXIT_OK;
	json_t *id = json_string(lock_id);
	if (!id)
		return rig_ctl_usage("--lock-id '%s' is not valid UTF-8", lock_id);
	if (json_object_set_new(body, "lockId", id) != 0 ||
	    json_object_set_new(body, "fencingToken",
				json_integer(rig_ctl_int(c, RIG_CTL_O_FENCING_TOKEN))) != 0) {
		json_object_del(body, "lockId");
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	}
	return RIG_EXIT_OK;
}

const char *rig_ctl_target(struct rig_url *u, const char *collection, const char *id,
			   const char *suffix)
{
	rig_url_path(u, "/v1/");
	rig_url_path(u, collection);
	if (id)
		rig_url_segment(u, id);
	if (suffix)
		rig_url_path(u, suffix);
	return rig_url_get(u);
}

int rig_ctl_call(struct rig_ctl *c, const char *method, const char *target, const json_t *body,
		 const char *idempotency_key, const char *if_match, json_t **out)
{
	struct rig_bytes text;
	struct rig_http_resp resp;
	int rc = RIG_EXIT_FAIL;
	rig_bytes_init(&text);
	rig_http_resp_init(&resp);
	if (out)
		*out = NULL;
	if (!target || (body && rig_out_json(&text, body) != 0)) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	struct rig_http_req req = {.method = method,
				   .target = target,
				   .body = body ? text.data : NULL,
				   .body_len = text.len,
				   .idempotency_key = idempotency_key,
				   .if_match = if_match};
	int sent = rig_http_send(&c->http, &req, &resp);
	if (sent != 0 || !rig_http_ok(&resp)) {
		rc = rig_report_send(stderr, RIG_CTL_PROG, sent, &c->http, &resp);
		goto out;
	}
	if (out && resp.body.len) {
		json_error_t jerr;
		*out = json_loadb(resp.body.data, resp.body.len, 0, &jerr);
		if (!*out) {
			rc = rig_report_fail(stderr, RIG_CTL_PROG,
					     "the server's answer is not JSON (HTTP %ld): %s",
					     resp.status, jerr.text);
			goto out;
		}
	}
	rc = RIG_EXIT_OK;
out:
	rig_http_resp_release(&resp);
	rig_bytes_release(&text);
	return rc;
}

int rig_ctl_post_write(struct rig_ctl *c, struct rig_url *u, json_t *body)
{
	if (rig_ctl_flag(c, RIG_CTL_O_DRY_RUN))
		rig_url_query(u, "dryRun", "true");
	if (rig_ctl_flag(c, RIG_CTL_O_CHECK_FRAMES) &&
	    json_object_set_new(body, "checkFrames", json_true()) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	json_t *receipt = NULL;
	int rc = rig_ctl_call(c, "POST", rig_url_get(u), body,
			      rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), NULL, &receipt);
	if (rc == RIG_EXIT_OK)
		rc = c->format == RIG_CTL_TABLE ? rig_ctl_print_receipt(receipt)
						: rig_ctl_print_json(receipt);
	json_decref(receipt);
	return rc;
}

int rig_ctl_print_json(const json_t *v)
{
	if (rig_out_json_line(stdout, v) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	return RIG_EXIT_OK;
}

static bool skipped(const char *key, const char *const *skip)
{
	for (size_t i = 0; skip && skip[i]; i++)
		if (strcmp(key, skip[i]) == 0)
			return true;
	return false;
}

int rig_ctl_print_fields(const json_t *o, const char *const *skip)
{
	const char *key;
	json_t *v;
	size_t width = 0;
	struct rig_bytes cell;
	rig_bytes_init(&cell);
	json_object_foreach((json_t *)o, key, v)
	{
		if (!skipped(key, skip) && strlen(key) > width)
			width = strlen(key);
	}
	json_object_foreach((json_t *)o, key, v)
	{
		if (skipped(key, skip))
			continue;
		rig_bytes_clear(&cell);
		if (json_is_null(v))
			rig_bytes_puts(&cell, "-");
		else
			rig_out_cell(&cell, v);
		printf("%-*s  %s\n", (int)width, key, cell.data ? cell.data : "");
	}
	rig_bytes_release(&cell);
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

int rig_ctl_print_object(const struct rig_ctl *c, const json_t *o)
{
	return c->format == RIG_CTL_TABLE ? rig_ctl_print_fields(o, NULL) : rig_ctl_print_json(o);
}

/* ---- paged lists ---- */

void rig_ctl_cell(struct rig_table *t, json_t *item, const char *key)
{
	json_t *v = json_object_get(item, key);
	struct rig_bytes b;
	rig_bytes_init(&b);
	if (!v || json_is_null(v) || rig_out_cell(&b, v) != 0)
		rig_table_cell(t, "-");
	else
		rig_table_cell(t, b.data ? b.data : "");
	rig_bytes_release(&b);
}

/* Prints one page's items in the chosen format; *printed_any says whether an
 * item was already printed (for the commas of json). */
static int print_items(struct rig_ctl *c, struct rig_table *t, const struct rig_ctl_list_view *v,
		       json_t *items, bool *printed_any)
{
	size_t i;
	json_t *item;
	json_array_foreach(items, i, item)
	{
		if (c->format == RIG_CTL_TABLE) {
			v->cells(t, item);
			continue;
		}
		if (c->format == RIG_CTL_JSON && *printed_any && fputc(',', stdout) == EOF)
			return -1;
		struct rig_bytes b;
		rig_bytes_init(&b);
		int rc = rig_out_json(&b, item);
		if (rc == 0 && c->format == RIG_CTL_NDJSON)
			rc = rig_bytes_puts(&b, "\n");
		if (rc == 0 && fwrite(b.data, 1, b.len, stdout) != b.len)
			rc = -1;
		rig_bytes_release(&b);
		if (rc)
			return -1;
		*printed_any = true;
	}
	/* A table's header waits for its first row. */
	return c->format == RIG_CTL_TABLE && json_array_size(items) ? rig_table_flush(t, stdout)
								    : 0;
}

int rig_ctl_list_pages(struct rig_ctl *c, const char *path, const struct rig_ctl_list_view *v,
		       bool all)
{
	struct rig_table t;
	json_t *page = NULL;
	char *token = NULL;
	bool printed_any = false, more = false;
	size_t n_items = 0;
	int rc = RIG_EXIT_OK;
	if (!path)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	rig_table_init(&t, v->n_cols, v->headers, v->right);
	for (size_t n_pages = 0;; n_pages++) {
		struct rig_url u;
		rig_url_init(&u);
		rig_url_path(&u, path);
		u.has_query = strchr(path, '?') != NULL; /* path may carry a query */
		rig_url_query(&u, "pageSize", rig_ctl_opt(c, RIG_CTL_O_PAGE_SIZE));
		rig_url_query(&u, "pageToken", token);
		rc = rig_ctl_call(c, "GET", rig_url_get(&u), NULL, NULL, NULL, &page);
		rig_url_release(&u);
		if (rc != RIG_EXIT_OK)
			goto out;
		json_t *items = json_object_get(page, v->items_name);
		n_items += json_array_size(items);
		/* Open the array only once there is something to put in it. */
		if (n_pages == 0 && c->format == RIG_CTL_JSON && fputc('[', stdout) == EOF)
			goto out_write;
		if (print_items(c, &t, v, items, &printed_any) != 0 || fflush(stdout) != 0)
			goto out_write;
		const char *next = json_string_value(json_object_get(page, "nextPageToken"));
		more = next != NULL;
		if (!next || !all)
			break;
		if ((rc = rig_report_next_token(stderr, RIG_CTL_PROG, &token, next)) != RIG_EXIT_OK)
			goto out;
		json_decref(page);
		page = NULL;
	}
	if (c->format == RIG_CTL_JSON && fputs("]\n", stdout) == EOF)
		goto out_write;
	if (c->format == RIG_CTL_TABLE) {
		if (n_items == 0)
			printf("(no %s)\n", v->noun ? v->noun : v->items_name);
		else if (more)
			printf("\nmore %s follow: add --all to list them all\n",
			       v->noun ? v->noun : v->items_name);
	}
	goto out;
out_write:
	rc = rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
out:
	json_decref(page);
	free(token);
	rig_table_release(&t);
	return rc;
}

/* ---- the command line ---- */

/* Whether word names cmd (its name or alias). */
static bool names(const struct command *cmd, const char *word)
{
	return strcmp(cmd->name, word) == 0 || (cmd->alias && strcmp(cmd->alias, word) == 0);
}

/* Finds the command for the positional words; *n_used says how many name it. */
static const struct command *find_command(const char *const *words, size_t n_words, size_t *n_used)
{
	if (n_words == 0)
		return NULL;
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *cmd = &commands[i];
		if (!names(cmd, words[0]))
			continue;
		if (!cmd->verb) {
			*n_used = 1;
			return cmd;
		}
		/* "rigctl projects" alone lists them. */
		if (n_words == 1 && strcmp(cmd->verb, "list") == 0) {
			*n_used = 1;
			return cmd;
		}
		if (n_words > 1 && strcmp(cmd->verb, words[1]) == 0) {
			*n_used = 2;
			return cmd;
		}
	}
	return NULL;
}

static int check_command(const struct command *cmd, size_t n_args, const char *const *words,
			 size_t n_words)
{
	if (!cmd) {
		if (n_words == 0)
			return rig_ctl_usage("a command is required");
		/* A known command with a wrong verb: name the verbs it has. */
		char verbs[128] = "";
		size_t n_verbs = 0;
		for (size_t i = 0; i < N_COMMANDS; i++)
			if (names(&commands[i], words[0]))
				n_verbs++;
		for (size_t i = 0, k = 0; i < N_COMMANDS; i++) {
			if (!names(&commands[i], words[0]))
				continue;
			k++;
			size_t len = strlen(verbs);
			snprintf(verbs + len, sizeof verbs - len, "%s%s",
				 k == 1         ? ""
				 : k == n_verbs ? " or "
						: ", ",
				 commands[i].verb);
		}
		if (n_verbs)
			return rig_ctl_usage("'%s %s' is not a command (try %s)", words[0],
					     n_words > 1 ? words[1] : "", verbs);
		return rig_ctl_usage("'%s' is not a command", words[0]);
	}
	const char *label = cmd->verb ? cmd->verb : "";
	if (n_args < cmd->min_args)
		return rig_ctl_usage("'%s%s%s' needs %s", cmd->name, cmd->verb ? " " : "", label,
				     cmd->needs);
	if (n_args > cmd->max_args)
		return rig_ctl_usage("unexpected argument '%s'", words[cmd->max_args]);
	return RIG_EXIT_OK;
}

/* ---- help and the options table ---- */

/* Writes the commands of scope into out, a command's verbs joined by '/':
 * "edit, plan create/revise". The scope_text of rigctl's struct rig_args_doc. */
static void scope_text(char *out, size_t size, rig_arg_cmds scope)
{
	size_t len = 0;
	const char *last = NULL;
	out[0] = '\0';
	for (size_t i = 0; i < N_COMMANDS && len < size; i++) {
		const struct command *cmd = &commands[i];
		if (!(cmd->bit & scope))
			continue;
		bool same = last && strcmp(last, cmd->name) == 0;
		if (same)
			len += (size_t)snprintf(out + len, size - len, "/%s", cmd->verb);
		else
			len += (size_t)snprintf(out + len, size - len, "%s%s%s%s", last ? ", " : "",
						cmd->name, cmd->verb ? " " : "",
						cmd->verb ? cmd->verb : "");
		last = cmd->name;
	}
}

static const struct rig_args_doc options_doc = {rig_ctl_options, RIG_CTL_O_COUNT, scope_text};

/* Prints the page of the command words[0] names (the overview when none):
 * its text around the options of all its verbs. Returns an exit code. */
static int print_help(const char *const *words, size_t n_words)
{
	const struct rig_ctl_help *page = &rig_ctl_help_overview;
	rig_arg_cmds family = 0;
	for (size_t i = 0; n_words && i < N_COMMANDS; i++) {
		if (!names(&commands[i], words[0]))
			continue;
		if (!family)
			page = commands[i].help;
		family |= commands[i].bit;
	}
	fputs(page->about, stdout);
	fputs(family ? "\nOptions:\n" : "\nOptions for every command:\n", stdout);
	rig_args_print_help(stdout, &options_doc, family);
	fputs(page->examples, stdout);
	return fflush(stdout) != 0 || ferror(stdout)
		       ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
		       : RIG_EXIT_OK;
}

/* ---- main ---- */

/* Prints what a one-word maintenance command line asks for ("--version",
 * "--options-markdown": the README's table); *done says whether it was one. */
static int print_alone(const char *arg, bool *done)
{
	int rc = 0;
	*done = true;
	if (strcmp(arg, "--version") == 0) {
		rc = rig_version_print(stdout, RIG_CTL_PROG);
	} else if (strcmp(arg, "--options-markdown") == 0) {
		rig_args_print_markdown(stdout, &options_doc);
	} else {
		*done = false;
		return RIG_EXIT_OK;
	}
	return rc != 0 || fflush(stdout) != 0 || ferror(stdout)
		       ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
		       : RIG_EXIT_OK;
}

/* The output format: --json, else --format, else table on a terminal and
 * json otherwise (frames reads its own --format, FILE_FORMAT). */
static int pick_format(enum rig_ctl_format *out, const struct rig_arg *opts)
{
	const struct rig_arg *format = &opts[RIG_CTL_O_FORMAT];
	if (opts[RIG_CTL_O_JSON].given) {
		if (format->given && format->choice != RIG_CTL_JSON)
			return rig_ctl_usage("--json and --format %s disagree", format->text);
		*out = RIG_CTL_JSON;
	} else if (format->given) {
		*out = (enum rig_ctl_format)format->choice; /* the row's words in enum order */
	} else {
		*out = isatty(STDOUT_FILENO) ? RIG_CTL_TABLE : RIG_CTL_JSON;
	}
	return RIG_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct rig_arg opts[RIG_CTL_O_COUNT];
	const char *words[RIG_CTL_MAX_WORDS];
	size_t n_words = 0, n_used = 0;
	char err[256], label[64];
	bool done = false;
	/* "rigctl --version" alone: with a command, --version N is the shot version
	 * 'constraints' reads. */
	int rc = argc == 2 ? print_alone(argv[1], &done) : RIG_EXIT_OK;
	if (done)
		return rc;
	if (rig_args_parse(opts, rig_ctl_options, RIG_CTL_O_COUNT, argc, argv, words,
			   RIG_CTL_MAX_WORDS, &n_words, err, sizeof err) != 0)
		return rig_ctl_usage("%s", err);
	/* "rigctl edit --help", "rigctl plan apply --help": the command's page;
	 * the overview without a command (or for a word that names none). */
	if (opts[RIG_CTL_O_HELP].given)
		return print_help(words, n_words);
	const struct command *cmd = find_command(words, n_words, &n_used);
	if ((rc = check_command(cmd, n_words - n_used, words + n_used, n_words)) != RIG_EXIT_OK)
		return rc;
	snprintf(label, sizeof label, "%s%s%s", cmd->name, cmd->verb ? " " : "",
		 cmd->verb ? cmd->verb : "");
	if (rig_args_resolve(opts, rig_ctl_options, RIG_CTL_O_COUNT, cmd->bit, label, err,
			     sizeof err) != 0)
		return rig_ctl_usage("%s", err);
	struct rig_ctl c = {
		.cmd = cmd->bit, .opts = opts, .args = words + n_used, .n_args = n_words - n_used};
	if ((rc = pick_format(&c.format, opts)) != RIG_EXIT_OK)
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot initialise libcurl");
	if (rig_http_init(&c.http, opts[RIG_CTL_O_URL].value, opts[RIG_CTL_O_ACTOR].text) != 0)
		rc = rig_report_transport(stderr, RIG_CTL_PROG, &c.http);
	else
		rc = cmd->run(&c);
	if (rc == RIG_EXIT_OK && fflush(stdout) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	rig_http_release(&c.http);
	curl_global_cleanup();
	return rc;
}
