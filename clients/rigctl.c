/* rigctl: the rigd API from a terminal (SPEC §9). This file parses the
 * command line, picks the command, prints its --help page (the text is
 * rigctl_help.c's) and holds the helpers every command uses (calls, paged
 * lists, option values); the commands live in rigctl_resources.c,
 * rigctl_edit.c, rigctl_frames.c, rigctl_plans.c, rigctl_locks.c,
 * rigctl_diff.c, rigctl_history.c and rigctl_constraints.c.
 */
#include "clients/rigctl.h"

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
	enum rig_ctl_cmd bit;
	size_t min_args, max_args;
	const char *needs; /* what too few positional words lack */
	int (*run)(struct rig_ctl *c);
	const char *help; /* 'rigctl COMMAND [VERB] --help' (rigctl_help.c) */
};

#define ID "an ID"
#define FILE_ARG "a FILE (or '-' for stdin)"
#define PLAN_ID "a PLAN_ID"
#define LOCK_ID "a LOCK_ID"

static const struct command commands[] = {
	{"projects", NULL, "list", RIG_CTL_PROJECTS_LIST, 0, 0, NULL, rig_ctl_projects,
	 rig_ctl_help_projects},
	{"projects", NULL, "create", RIG_CTL_PROJECTS_CREATE, 1, 1, "a NAME", rig_ctl_projects,
	 rig_ctl_help_projects},
	{"projects", NULL, "show", RIG_CTL_PROJECTS_SHOW, 1, 1, ID, rig_ctl_projects,
	 rig_ctl_help_projects},
	{"projects", NULL, "delete", RIG_CTL_PROJECTS_DELETE, 1, 1, ID, rig_ctl_projects,
	 rig_ctl_help_projects},
	{"shots", NULL, "list", RIG_CTL_SHOTS_LIST, 0, 0, NULL, rig_ctl_shots, rig_ctl_help_shots},
	{"shots", NULL, "create", RIG_CTL_SHOTS_CREATE, 1, 1, "a NAME", rig_ctl_shots,
	 rig_ctl_help_shots},
	{"shots", NULL, "show", RIG_CTL_SHOTS_SHOW, 1, 1, ID, rig_ctl_shots, rig_ctl_help_shots},
	{"shots", NULL, "delete", RIG_CTL_SHOTS_DELETE, 1, 1, ID, rig_ctl_shots,
	 rig_ctl_help_shots},
	{"layers", NULL, NULL, RIG_CTL_LAYERS, 0, 1, NULL, rig_ctl_layers, rig_ctl_help_layers},
	{"edit", NULL, NULL, RIG_CTL_EDIT, 1, 1, FILE_ARG, rig_ctl_edit, rig_ctl_help_edit},
	{"receipts", NULL, NULL, RIG_CTL_RECEIPTS, 0, 1, NULL, rig_ctl_receipts,
	 rig_ctl_help_receipts},
	{"revert", NULL, NULL, RIG_CTL_REVERT, 1, 1, "a RECEIPT_ID", rig_ctl_revert,
	 rig_ctl_help_revert},
	{"frames", NULL, NULL, RIG_CTL_FRAMES, 0, 0, NULL, rig_ctl_frames, rig_ctl_help_frames},
	{"plan", "plans", "create", RIG_CTL_PLAN_CREATE, 1, 1, FILE_ARG, rig_ctl_plans,
	 rig_ctl_help_plan},
	{"plan", "plans", "show", RIG_CTL_PLAN_SHOW, 1, 1, PLAN_ID, rig_ctl_plans,
	 rig_ctl_help_plan},
	{"plan", "plans", "list", RIG_CTL_PLAN_LIST, 0, 0, NULL, rig_ctl_plans, rig_ctl_help_plan},
	{"plan", "plans", "validate", RIG_CTL_PLAN_VALIDATE, 1, 1, PLAN_ID, rig_ctl_plans,
	 rig_ctl_help_plan},
	{"plan", "plans", "revise", RIG_CTL_PLAN_REVISE, 2, 2, "a PLAN_ID and " FILE_ARG,
	 rig_ctl_plans, rig_ctl_help_plan},
	{"plan", "plans", "apply", RIG_CTL_PLAN_APPLY, 1, 1, PLAN_ID, rig_ctl_plans,
	 rig_ctl_help_plan},
	{"plan", "plans", "delete", RIG_CTL_PLAN_DELETE, 1, 1, PLAN_ID, rig_ctl_plans,
	 rig_ctl_help_plan},
	{"lock", "locks", "acquire", RIG_CTL_LOCK_ACQUIRE, 1, RIG_CTL_MAX_WORDS - 2,
	 "at least one LAYER_ID", rig_ctl_locks, rig_ctl_help_lock},
	{"lock", "locks", "renew", RIG_CTL_LOCK_RENEW, 1, 1, LOCK_ID, rig_ctl_locks,
	 rig_ctl_help_lock},
	{"lock", "locks", "release", RIG_CTL_LOCK_RELEASE, 1, 1, LOCK_ID, rig_ctl_locks,
	 rig_ctl_help_lock},
	{"lock", "locks", "list", RIG_CTL_LOCK_LIST, 0, 0, NULL, rig_ctl_locks, rig_ctl_help_lock},
	{"diff", NULL, NULL, RIG_CTL_DIFF, 1, 1, "a SHOT_ID", rig_ctl_diff, rig_ctl_help_diff},
	{"constraints", NULL, NULL, RIG_CTL_CONSTRAINTS, 1, 1, "a SHOT_ID", rig_ctl_constraints,
	 rig_ctl_help_constraints},
	{"constraint", NULL, "put", RIG_CTL_CONSTRAINT_PUT, 1, 1, "a SHOT_ID", rig_ctl_constraints,
	 rig_ctl_help_constraint},
	{"constraint", NULL, "delete", RIG_CTL_CONSTRAINT_DELETE, 1, 1, "a SHOT_ID",
	 rig_ctl_constraints, rig_ctl_help_constraint},
};

#undef ID
#undef FILE_ARG
#undef PLAN_ID
#undef LOCK_ID

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* ---- helpers for the commands ---- */

const char *rig_ctl_opt(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].value;
}

bool rig_ctl_flag(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].seen;
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

int rig_ctl_int_opt(const struct rig_ctl *c, enum rig_ctl_opt o, long long min_value,
		    long long *out)
{
	const char *text = rig_ctl_opt(c, o);
	long long v;
	if (!text)
		return RIG_EXIT_OK;
	if (rig_args_llong(&v, text, false) != 0 || v < min_value)
		return rig_ctl_usage("--%s '%s' is not a whole number of at least %lld",
				     c->opts[o].name, text, min_value);
	*out = v;
	return RIG_EXIT_OK;
}

int rig_ctl_fence_opts(const struct rig_ctl *c, json_t *body)
{
	const char *lock_id = rig_ctl_opt(c, RIG_CTL_O_LOCK_ID);
	long long token = 0;
	int rc = rig_ctl_int_opt(c, RIG_CTL_O_FENCING_TOKEN, 1, &token);
	if (rc != RIG_EXIT_OK)
		return rc;
	if (!lock_id != !rig_ctl_opt(c, RIG_CTL_O_FENCING_TOKEN))
		return rig_ctl_usage("--lock-id and --fencing-token go together");
	if (!lock_id)
		return RIG_EXIT_OK;
	json_t *id = json_string(lock_id);
	if (!id)
		return rig_ctl_usage("--lock-id '%s' is not valid UTF-8", lock_id);
	if (json_object_set_new(body, "lockId", id) != 0 ||
	    json_object_set_new(body, "fencingToken", json_integer(token)) != 0) {
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
			printf("(no %s)\n", v->items_name);
		else if (more)
			printf("\nmore %s follow: add --all to list them all\n", v->items_name);
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

static int check_command(const struct command *cmd, const struct rig_opt *opts, size_t n_args,
			 const char *const *words, size_t n_words)
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
	for (size_t o = 0; o < RIG_CTL_O_COUNT; o++) {
		if (opts[o].seen && opts[o].scope && !(opts[o].scope & cmd->bit))
			return rig_ctl_usage("option '--%s' does not apply to '%s%s%s'",
					     opts[o].name, cmd->name, cmd->verb ? " " : "", label);
	}
	return RIG_EXIT_OK;
}

int main(int argc, char **argv)
{
	const unsigned creates = RIG_CTL_PROJECTS_CREATE | RIG_CTL_SHOTS_CREATE;
	const unsigned plan_writes = RIG_CTL_PLAN_CREATE | RIG_CTL_PLAN_REVISE |
				     RIG_CTL_PLAN_APPLY | RIG_CTL_PLAN_DELETE;
	const unsigned lock_writes =
		RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_RENEW | RIG_CTL_LOCK_RELEASE;
	const unsigned cons_writes = RIG_CTL_CONSTRAINT_PUT | RIG_CTL_CONSTRAINT_DELETE;
	const unsigned cons_put = RIG_CTL_CONSTRAINT_PUT;
	const unsigned writes = creates | RIG_CTL_PROJECTS_DELETE | RIG_CTL_SHOTS_DELETE |
				RIG_CTL_EDIT | RIG_CTL_REVERT | plan_writes | lock_writes |
				cons_writes;
	const unsigned per_shot = RIG_CTL_LAYERS | RIG_CTL_EDIT | RIG_CTL_RECEIPTS |
				  RIG_CTL_FRAMES | RIG_CTL_PLAN_CREATE | RIG_CTL_PLAN_LIST |
				  RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_LIST;
	const unsigned lists = RIG_CTL_PROJECTS_LIST | RIG_CTL_SHOTS_LIST | RIG_CTL_RECEIPTS |
			       RIG_CTL_PLAN_LIST | RIG_CTL_CONSTRAINTS;
	const unsigned plan_content = RIG_CTL_PLAN_CREATE | RIG_CTL_PLAN_REVISE;
	const unsigned fenced = RIG_CTL_EDIT | RIG_CTL_PLAN_APPLY | RIG_CTL_REVERT | cons_writes;
	struct rig_opt opts[RIG_CTL_O_COUNT] = {
		[RIG_CTL_O_URL] = {"url", true, 0, NULL, false},
		[RIG_CTL_O_ACTOR] = {"actor", true, 0, NULL, false},
		[RIG_CTL_O_FORMAT] = {"format", true, 0, NULL, false},
		[RIG_CTL_O_HELP] = {"help", false, 0, NULL, false},
		[RIG_CTL_O_ID] = {"id", true, creates | RIG_CTL_PLAN_CREATE | cons_writes, NULL,
				  false},
		[RIG_CTL_O_PROJECT] = {"project", true, RIG_CTL_SHOTS_LIST | RIG_CTL_SHOTS_CREATE,
				       NULL, false},
		[RIG_CTL_O_FPS] = {"fps", true, RIG_CTL_SHOTS_CREATE, NULL, false},
		[RIG_CTL_O_FRAME_START] = {"frame-start", true, RIG_CTL_SHOTS_CREATE, NULL, false},
		[RIG_CTL_O_FRAME_END] = {"frame-end", true, RIG_CTL_SHOTS_CREATE, NULL, false},
		[RIG_CTL_O_IF_MATCH] = {"if-match", true, RIG_CTL_SHOTS_DELETE, NULL, false},
		[RIG_CTL_O_IDEMPOTENCY_KEY] = {"idempotency-key", true, writes, NULL, false},
		[RIG_CTL_O_SHOT] = {"shot", true, per_shot, NULL, false},
		[RIG_CTL_O_LAYER] = {"layer", true, RIG_CTL_FRAMES, NULL, false},
		[RIG_CTL_O_EXPECTED_VERSION] = {"expected-version", true,
						RIG_CTL_EDIT | RIG_CTL_REVERT | cons_writes, NULL,
						false},
		[RIG_CTL_O_DRY_RUN] = {"dry-run", false,
				       RIG_CTL_EDIT | RIG_CTL_REVERT | cons_writes, NULL, false},
		[RIG_CTL_O_ALL] = {"all", false, RIG_CTL_RECEIPTS | RIG_CTL_PLAN_LIST, NULL, false},
		[RIG_CTL_O_PAGE_SIZE] = {"page-size", true, lists, NULL, false},
		[RIG_CTL_O_FROM] = {"from", true, RIG_CTL_FRAMES | RIG_CTL_DIFF, NULL, false},
		[RIG_CTL_O_TO] = {"to", true, RIG_CTL_FRAMES | RIG_CTL_DIFF, NULL, false},
		[RIG_CTL_O_STEP] = {"step", true, RIG_CTL_FRAMES, NULL, false},
		[RIG_CTL_O_SPACE] = {"space", true, RIG_CTL_FRAMES, NULL, false},
		[RIG_CTL_O_OUT] = {"out", true, RIG_CTL_FRAMES, NULL, false},
		[RIG_CTL_O_NO_PROGRESS] = {"no-progress", false, RIG_CTL_FRAMES, NULL, false},
		[RIG_CTL_O_TITLE] = {"title", true, plan_content, NULL, false},
		[RIG_CTL_O_BASE_VERSION] = {"base-version", true, plan_content, NULL, false},
		[RIG_CTL_O_PIN] = {"pin", false, plan_content, NULL, false},
		[RIG_CTL_O_UNPIN] = {"unpin", false, RIG_CTL_PLAN_REVISE, NULL, false},
		[RIG_CTL_O_PLAN_VERSION] = {"plan-version", true,
					    RIG_CTL_PLAN_REVISE | RIG_CTL_PLAN_APPLY, NULL, false},
		[RIG_CTL_O_LOCK_ID] = {"lock-id", true, fenced, NULL, false},
		[RIG_CTL_O_FENCING_TOKEN] = {"fencing-token", true, fenced, NULL, false},
		[RIG_CTL_O_TTL] = {"ttl", true, RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_RENEW, NULL,
				   false},
		[RIG_CTL_O_MAX_BYTES] = {"max-bytes", true, RIG_CTL_DIFF, NULL, false},
		[RIG_CTL_O_FORCE] = {"force", false, RIG_CTL_REVERT, NULL, false},
		[RIG_CTL_O_CHECK_FRAMES] = {"check-frames", false,
					    RIG_CTL_EDIT | RIG_CTL_REVERT | RIG_CTL_PLAN_APPLY |
						    cons_writes,
					    NULL, false},
		[RIG_CTL_O_VERSION] = {"version", true, RIG_CTL_CONSTRAINTS, NULL, false},
		[RIG_CTL_O_JSON] = {"json", false, RIG_CTL_CONSTRAINTS | cons_writes, NULL, false},
		[RIG_CTL_O_CHAIN] = {"chain", true, cons_put, NULL, false},
		[RIG_CTL_O_TARGET] = {"target", true, cons_put, NULL, false},
		[RIG_CTL_O_POLE] = {"pole", true, cons_put, NULL, false},
		[RIG_CTL_O_BEND_POSITIVE] = {"bend-positive", false, cons_put, NULL, false},
		[RIG_CTL_O_BEND_NEGATIVE] = {"bend-negative", false, cons_put, NULL, false},
		[RIG_CTL_O_MIX] = {"mix", true, cons_put, NULL, false},
		[RIG_CTL_O_SOFTNESS] = {"softness", true, cons_put, NULL, false},
		[RIG_CTL_O_STRETCH] = {"stretch", false, cons_put, NULL, false},
		[RIG_CTL_O_COMPRESS] = {"compress", false, cons_put, NULL, false},
		[RIG_CTL_O_ORDER] = {"order", true, cons_put, NULL, false},
		[RIG_CTL_O_TIP_LENGTH] = {"tip-length", true, cons_put, NULL, false},
	};
	const char *words[RIG_CTL_MAX_WORDS];
	size_t n_words = 0, n_used = 0;
	char err[256];
	/* "rigctl --version" alone: with a command, --version N is the shot version
	 * 'constraints' reads. */
	if (argc == 2 && strcmp(argv[1], "--version") == 0)
		return rig_version_print(stdout, RIG_CTL_PROG) == 0
			       ? RIG_EXIT_OK
			       : rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	if (rig_args_parse(opts, RIG_CTL_O_COUNT, argc, argv, words, RIG_CTL_MAX_WORDS, &n_words,
			   err, sizeof err) != 0)
		return rig_ctl_usage("%s", err);
	if (opts[RIG_CTL_O_HELP].seen) {
		/* "rigctl edit --help", "rigctl plan apply --help": the command's page;
		 * the overview without a command (or for a word that names none). */
		const char *page = rig_ctl_help_overview;
		for (size_t i = 0; n_words && i < N_COMMANDS; i++) {
			if (names(&commands[i], words[0])) {
				page = commands[i].help;
				break;
			}
		}
		return fputs(page, stdout) == EOF || fflush(stdout) != 0
			       ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			       : RIG_EXIT_OK;
	}
	const struct command *cmd = find_command(words, n_words, &n_used);
	int rc = check_command(cmd, opts, n_words - n_used, words + n_used, n_words);
	if (rc != RIG_EXIT_OK)
		return rc;
	struct rig_ctl c = {
		.cmd = cmd->bit, .opts = opts, .args = words + n_used, .n_args = n_words - n_used};
	const char *format = opts[RIG_CTL_O_FORMAT].value;
	if (opts[RIG_CTL_O_JSON].seen) { /* --json: short for --format json */
		if (format && strcmp(format, "json") != 0)
			return rig_ctl_usage("--json and --format %s disagree", format);
		format = "json";
	}
	if (cmd->bit != RIG_CTL_FRAMES && format) {
		if (strcmp(format, "table") == 0)
			c.format = RIG_CTL_TABLE;
		else if (strcmp(format, "json") == 0)
			c.format = RIG_CTL_JSON;
		else if (strcmp(format, "ndjson") == 0)
			c.format = RIG_CTL_NDJSON;
		else
			return rig_ctl_usage("--format '%s' is not table, json or ndjson", format);
	} else {
		c.format = isatty(STDOUT_FILENO) ? RIG_CTL_TABLE : RIG_CTL_JSON;
	}
	const char *url = opts[RIG_CTL_O_URL].value, *env_url = getenv("RIGD_URL");
	if (!url)
		url = env_url && *env_url ? env_url : RIG_HTTP_DEFAULT_URL;
	const char *actor = opts[RIG_CTL_O_ACTOR].value, *env_actor = getenv("RIGD_ACTOR");
	if (!actor && env_actor && *env_actor)
		actor = env_actor;
	if (actor && (!*actor || strlen(actor) > 128))
		return rig_ctl_usage("--actor must be 1 to 128 characters");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot initialise libcurl");
	if (rig_http_init(&c.http, url, actor) != 0)
		rc = rig_report_transport(stderr, RIG_CTL_PROG, &c.http);
	else
		rc = cmd->run(&c);
	if (rc == RIG_EXIT_OK && fflush(stdout) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	rig_http_release(&c.http);
	curl_global_cleanup();
	return rc;
}
