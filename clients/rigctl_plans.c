/* rigctl plan: a shot's saved plans (SPEC §6). create reads an ops file as
 * rigctl edit does, show and list print plans, validate prints the dry run
 * (ok and the receipt it would produce, or every error), revise replaces a
 * draft under CAS (If-Match on the plan version), apply sends the reviewed
 * plan version and prints the receipt, delete drops a draft. Locks live in
 * rigctl_locks.c.
 */
#include <stdio.h>
#include <string.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/table.h"
#include "clients/url.h"

/* ================================ printing ================================ */

/* The string member key of o, or fallback when it is missing or not a string. */
static const char *text(const json_t *o, const char *key, const char *fallback)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : fallback;
}

/* Prints a plan (table format): id, version and status, shot and pin, title,
 * author, times, the receipt of an applied plan, then its ops. */
static int print_plan(const json_t *p)
{
	json_t *base = json_object_get(p, "baseVersion");
	printf("plan     %s  version %" JSON_INTEGER_FORMAT ", %s\n", text(p, "planId", "?"),
	       json_integer_value(json_object_get(p, "planVersion")), text(p, "status", "?"));
	if (json_is_integer(base))
		printf("shot     %s  pinned to version %" JSON_INTEGER_FORMAT "\n",
		       text(p, "shotId", "?"), json_integer_value(base));
	else
		printf("shot     %s  unpinned (applies to the current version)\n",
		       text(p, "shotId", "?"));
	printf("title    %s\n", text(p, "title", "-"));
	printf("author   %s\n", text(p, "author", "-"));
	printf("created  %s\n", text(p, "createdAt", "-"));
	printf("updated  %s\n", text(p, "updatedAt", "-"));
	if (json_string_value(json_object_get(p, "receiptId")))
		printf("receipt  %s\n", text(p, "receiptId", "-"));
	rig_ctl_print_ops(json_object_get(p, "ops"));
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

static int print_plan_as(const struct rig_ctl *c, const json_t *p)
{
	return c->format == RIG_CTL_TABLE ? print_plan(p) : rig_ctl_print_json(p);
}

static void plan_cells(struct rig_table *t, json_t *p)
{
	rig_ctl_cell(t, p, "planId");
	rig_ctl_cell(t, p, "planVersion");
	rig_ctl_cell(t, p, "status");
	rig_ctl_cell(t, p, "baseVersion");
	rig_table_cellf(t, "%zu", json_array_size(json_object_get(p, "ops")));
	rig_ctl_cell(t, p, "author");
	rig_ctl_cell(t, p, "updatedAt");
	rig_ctl_cell(t, p, "title");
}

static const struct rig_ctl_list_view plan_view = {
	"plans",
	8,
	{"plan", "version", "status", "pinned to", "ops", "author", "updated", "title"},
	{0, 1, 0, 1, 1, 0, 0, 0},
	plan_cells,
	NULL};

/* Prints a validation result (table format): the verdict, then the receipt
 * it would produce or every error with its code, pointer and op index. */
static int print_validation(const json_t *v)
{
	json_t *receipt = json_object_get(v, "receipt");
	json_t *errors = json_object_get(v, "errors");
	json_t *total = json_object_get(v, "errorCount");
	size_t n_errors = json_is_integer(total) ? (size_t)json_integer_value(total)
						 : json_array_size(errors);
	bool ok = json_is_true(json_object_get(v, "ok"));
	printf("plan     %s  version %" JSON_INTEGER_FORMAT "\n", text(v, "planId", "?"),
	       json_integer_value(json_object_get(v, "planVersion")));
	if (ok)
		printf("result   ok: it would apply; nothing was written\n");
	else
		printf("result   not ok: %zu error%s; nothing was written\n", n_errors,
		       n_errors == 1 ? "" : "s");
	if (ok && json_is_object(receipt)) {
		printf("shot     %s  version %" JSON_INTEGER_FORMAT " → %" JSON_INTEGER_FORMAT
		       " (if applied)\n",
		       text(receipt, "shotId", "?"),
		       json_integer_value(json_object_get(receipt, "fromVersion")),
		       json_integer_value(json_object_get(receipt, "toVersion")));
		rig_ctl_print_ops(json_object_get(receipt, "ops"));
		json_t *changed = json_object_get(receipt, "changedLayers");
		printf("changed  ");
		for (size_t i = 0; i < json_array_size(changed); i++)
			printf("%s%s", i ? ", " : "",
			       json_string_value(json_array_get(changed, i)));
		printf("%s\n", json_array_size(changed) ? "" : "-");
	} else if (json_is_integer(json_object_get(v, "shotVersion"))) {
		printf("shot     now at version %" JSON_INTEGER_FORMAT "\n",
		       json_integer_value(json_object_get(v, "shotVersion")));
	}
	size_t i;
	json_t *e;
	json_array_foreach(errors, i, e) rig_report_error(stdout, i, e);
	if (n_errors > json_array_size(errors))
		printf("  (%zu errors in all; the first %zu are shown)\n", n_errors,
		       json_array_size(errors));
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

/* ============================ building bodies ============================ */

/* Reads the version of shot into *out. Returns an exit code (failures
 * printed). */
static int shot_version(struct rig_ctl *c, const char *shot, long long *out)
{
	struct rig_url u;
	json_t *s = NULL;
	rig_url_init(&u);
	int rc = rig_ctl_call(c, "GET", rig_ctl_target(&u, "shots", shot, NULL), NULL, NULL, NULL,
			      &s);
	json_t *v = json_object_get(s, "version");
	if (rc == RIG_EXIT_OK && !json_is_integer(v))
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "shot '%s' came back without a version",
				     shot);
	if (rc == RIG_EXIT_OK)
		*out = json_integer_value(v);
	json_decref(s);
	rig_url_release(&u);
	return rc;
}

/* The body of plan create (cur NULL) or revise (cur the plan as it is now):
 * ops from file; title from --title ('' for none), else file's "title", else
 * cur's; baseVersion from --base-version, --pin (the shot's current version)
 * or --unpin, else file's "baseVersion", else cur's. A null title or
 * baseVersion is left out, which the server reads as none. Stores a new
 * object in *out; returns an exit code (failures printed). */
static int content_body(json_t **out, struct rig_ctl *c, const json_t *file, const char *shot,
			const json_t *cur)
{
	const char *title = rig_ctl_opt(c, RIG_CTL_O_TITLE);
	long long base = rig_ctl_opt(c, RIG_CTL_O_BASE_VERSION)
				 ? rig_ctl_int(c, RIG_CTL_O_BASE_VERSION)
				 : -1;
	int rc = RIG_EXIT_OK;
	*out = NULL;
	int n_pins =
		(base >= 0) + rig_ctl_flag(c, RIG_CTL_O_PIN) + rig_ctl_flag(c, RIG_CTL_O_UNPIN);
	if (n_pins > 1)
		return rig_ctl_usage("--base-version, --pin and --unpin exclude each other");
	if (rig_ctl_flag(c, RIG_CTL_O_PIN) && (rc = shot_version(c, shot, &base)) != RIG_EXIT_OK)
		return rc;
	json_t *body = json_pack("{s:O}", "ops", json_object_get(file, "ops"));
	if (!body)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	json_t *t = title                            ? (title[0] ? json_string(title) : json_null())
		    : json_object_get(file, "title") ? json_incref(json_object_get(file, "title"))
						     : json_incref(json_object_get(cur, "title"));
	json_t *b = base >= 0                          ? json_integer(base)
		    : rig_ctl_flag(c, RIG_CTL_O_UNPIN) ? json_null()
		    : json_object_get(file, "baseVersion")
			    ? json_incref(json_object_get(file, "baseVersion"))
			    : json_incref(json_object_get(cur, "baseVersion"));
	if (title && !t) {
		json_decref(b);
		json_decref(body);
		return rig_ctl_usage("--title is not valid UTF-8");
	}
	if (t && !json_is_null(t))
		json_object_set(body, "title", t);
	if (b && !json_is_null(b))
		json_object_set(body, "baseVersion", b);
	json_decref(t);
	json_decref(b);
	*out = body;
	return RIG_EXIT_OK;
}

/* ================================ commands ================================ */

static int plan_create(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	const char *id = rig_ctl_opt(c, RIG_CTL_O_ID);
	json_t *file = NULL, *body = NULL, *plan = NULL;
	struct rig_url u;
	int rc;
	rig_url_init(&u);
	if ((rc = rig_ctl_read_ops(&file, c->args[0])) != RIG_EXIT_OK)
		goto out;
	if ((rc = content_body(&body, c, file, shot, NULL)) != RIG_EXIT_OK)
		goto out;
	if (id && json_object_set_new(body, "planId", json_string(id)) != 0) {
		rc = rig_ctl_usage("--id is not valid UTF-8");
		goto out;
	}
	rc = rig_ctl_call(c, "POST", rig_ctl_target(&u, "shots", shot, "/plans"), body,
			  rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), NULL, &plan);
	if (rc == RIG_EXIT_OK)
		rc = print_plan_as(c, plan);
out:
	json_decref(plan);
	json_decref(body);
	json_decref(file);
	rig_url_release(&u);
	return rc;
}

/* Reads the plan named by the first argument into *out. */
static int get_plan(struct rig_ctl *c, json_t **out)
{
	struct rig_url u;
	rig_url_init(&u);
	int rc = rig_ctl_call(c, "GET", rig_ctl_target(&u, "plans", c->args[0], NULL), NULL, NULL,
			      NULL, out);
	rig_url_release(&u);
	return rc;
}

/* Revise reads the plan first, so that what the flags and FILE leave unsaid
 * (title, pin) stays as it was in the version being revised; the If-Match
 * header makes the server refuse when that version is no longer current. */
static int plan_revise(struct rig_ctl *c)
{
	long long version = rig_ctl_int(c, RIG_CTL_O_PLAN_VERSION);
	char if_match[32];
	json_t *file = NULL, *cur = NULL, *body = NULL, *plan = NULL;
	struct rig_url u;
	int rc;
	snprintf(if_match, sizeof if_match, "\"%lld\"", version);
	rig_url_init(&u);
	if ((rc = rig_ctl_read_ops(&file, c->args[1])) != RIG_EXIT_OK)
		goto out;
	if ((rc = get_plan(c, &cur)) != RIG_EXIT_OK)
		goto out;
	rc = content_body(&body, c, file, text(cur, "shotId", ""), cur);
	if (rc != RIG_EXIT_OK)
		goto out;
	rc = rig_ctl_call(c, "PUT", rig_ctl_target(&u, "plans", c->args[0], NULL), body,
			  rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), if_match, &plan);
	if (rc == RIG_EXIT_OK)
		rc = print_plan_as(c, plan);
out:
	json_decref(plan);
	json_decref(body);
	json_decref(cur);
	json_decref(file);
	rig_url_release(&u);
	return rc;
}

static int plan_apply(struct rig_ctl *c)
{
	long long version = rig_ctl_int(c, RIG_CTL_O_PLAN_VERSION);
	json_t *body = NULL;
	struct rig_url u;
	int rc;
	if (!(body = json_pack("{s:I}", "planVersion", (json_int_t)version)))
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	rig_url_init(&u);
	if ((rc = rig_ctl_fence_opts(c, body)) != RIG_EXIT_OK)
		goto out;
	rig_ctl_target(&u, "plans", c->args[0], "/apply");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	rig_url_release(&u);
	return rc;
}

/* Prints the dry run; exits 1 when the plan would not apply (with a line on
 * stderr when stdout is JSON, so a script's log says why). */
static int plan_validate(struct rig_ctl *c)
{
	json_t *v = NULL;
	struct rig_url u;
	rig_url_init(&u);
	int rc = rig_ctl_call(c, "POST", rig_ctl_target(&u, "plans", c->args[0], "/validate"), NULL,
			      NULL, NULL, &v);
	rig_url_release(&u);
	if (rc != RIG_EXIT_OK)
		return rc;
	rc = c->format == RIG_CTL_TABLE ? print_validation(v) : rig_ctl_print_json(v);
	if (rc == RIG_EXIT_OK && !json_is_true(json_object_get(v, "ok"))) {
		json_t *total = json_object_get(v, "errorCount");
		size_t n = json_is_integer(total) ? (size_t)json_integer_value(total)
						  : json_array_size(json_object_get(v, "errors"));
		rc = RIG_EXIT_FAIL;
		if (c->format != RIG_CTL_TABLE)
			rig_report_fail(stderr, RIG_CTL_PROG,
					"plan '%s' would not apply: %zu error%s", c->args[0], n,
					n == 1 ? "" : "s");
	}
	json_decref(v);
	return rc;
}

int rig_ctl_plans(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	struct rig_url u;
	json_t *got = NULL;
	int rc;
	switch (c->cmd) {
	case RIG_CTL_PLAN_CREATE:
		return plan_create(c);
	case RIG_CTL_PLAN_REVISE:
		return plan_revise(c);
	case RIG_CTL_PLAN_APPLY:
		return plan_apply(c);
	case RIG_CTL_PLAN_VALIDATE:
		return plan_validate(c);
	case RIG_CTL_PLAN_LIST:
		rig_url_init(&u);
		rc = rig_ctl_list_pages(c, rig_ctl_target(&u, "shots", shot, "/plans"), &plan_view,
					rig_ctl_flag(c, RIG_CTL_O_ALL));
		rig_url_release(&u);
		return rc;
	case RIG_CTL_PLAN_SHOW:
		rc = get_plan(c, &got);
		if (rc == RIG_EXIT_OK)
			rc = print_plan_as(c, got);
		json_decref(got);
		return rc;
	default: /* RIG_CTL_PLAN_DELETE */
		rig_url_init(&u);
		rc = rig_ctl_call(c, "DELETE", rig_ctl_target(&u, "plans", c->args[0], NULL), NULL,
				  rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), NULL, &got);
		rig_url_release(&u);
		if (rc == RIG_EXIT_OK)
			rc = rig_ctl_print_object(c, got);
		json_decref(got);
		return rc;
	}
}
