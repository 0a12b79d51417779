/* rigctl edit: sends a batch of ops from a file (or stdin) to
 * POST /v1/shots/{id}/edits and prints the receipt; the file reader (and the
 * ops-file reader) that rigctl plan and the authoring commands share; and the receipt printout that
 * rigctl receipts and rigctl plan apply share.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

int rig_ctl_read_file(struct rig_bytes *out, const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int rc = RIG_EXIT_OK;
	if (!f)
		return rig_ctl_usage("cannot read '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && rc == RIG_EXIT_OK)
		if (rig_bytes_append(out, chunk, n) != 0)
			rc = RIG_EXIT_USAGE;
	if (rc != RIG_EXIT_OK || ferror(f))
		rc = rig_ctl_usage("cannot read '%s'%s", is_stdin ? "stdin" : path,
				   rc ? ": out of memory" : "");
	if (!is_stdin)
		fclose(f);
	return rc;
}

/* Makes the request body from the file's JSON (a reference this takes):
 * {ops: [...], ...} as is, a bare array of ops, or a single op object.
 * Returns a new reference, or NULL with a usage error printed. */
static json_t *batch_body(json_t *doc, const char *path)
{
	json_t *body = NULL;
	if (json_is_array(doc))
		body = json_pack("{s:O}", "ops", doc);
	else if (json_is_object(doc) && json_object_get(doc, "ops"))
		body = json_incref(doc);
	else if (json_is_object(doc) && json_object_get(doc, "op"))
		body = json_pack("{s:[O]}", "ops", doc);
	else
		rig_ctl_usage("'%s' must hold {\"ops\": [...]}, an array of ops or one op object",
			      path);
	json_decref(doc);
	return body;
}

int rig_ctl_read_ops(json_t **out, const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct rig_bytes text;
	int rc = RIG_EXIT_USAGE;
	*out = NULL;
	rig_bytes_init(&text);
	if (rig_ctl_read_file(&text, path) != RIG_EXIT_OK)
		goto out;
	json_error_t jerr;
	json_t *doc = json_loadb(text.data ? text.data : "", text.len, 0, &jerr);
	if (!doc) {
		rig_ctl_usage("%s%s%s is not JSON: line %d, column %d: %s", is_stdin ? "" : "'",
			      is_stdin ? "stdin" : path, is_stdin ? "" : "'", jerr.line,
			      jerr.column, jerr.text);
		goto out;
	}
	if ((*out = batch_body(doc, path)) != NULL)
		rc = RIG_EXIT_OK;
out:
	rig_bytes_release(&text);
	return rc;
}

int rig_ctl_edit(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	struct rig_url u;
	json_t *body = NULL;
	int rc;
	rig_url_init(&u);
	if ((rc = rig_ctl_read_ops(&body, c->args[0])) != RIG_EXIT_OK)
		goto out;
	if ((rc = rig_ctl_expected_version(c, body)) != RIG_EXIT_OK ||
	    (rc = rig_ctl_fence_opts(c, body)) != RIG_EXIT_OK)
		goto out;
	rig_url_path(&u, "/v1/shots");
	rig_url_segment(&u, shot);
	rig_url_path(&u, "/edits");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	rig_url_release(&u);
	return rc;
}

void rig_ctl_print_ops(const json_t *ops)
{
	size_t i;
	json_t *op;
	if (json_array_size(ops) == 0)
		printf("ops      -\n");
	json_array_foreach(ops, i, op)
	{
		const char *name = json_string_value(json_object_get(op, "op"));
		const char *layer = json_string_value(json_object_get(op, "layerId"));
		printf("%s %3zu  %-28s %s\n", i ? "        " : "ops     ", i, name ? name : "?",
		       layer ? layer : "");
		/* a receipt's entry: the ops it expanded to (bones.suggest,
		 * rig.auto), the vertices whose weights it changed */
		size_t k;
		json_t *sub;
		json_array_foreach(json_object_get(op, "expandedOps"), k, sub)
		{
			name = json_string_value(json_object_get(sub, "op"));
			layer = json_string_value(json_object_get(sub, "layerId"));
			printf("              + %-26s %s\n", name ? name : "?", layer ? layer : "");
		}
		json_t *changed = json_object_get(op, "changedVertices");
		json_int_t n_changed = json_integer_value(json_object_get(changed, "count"));
		if (changed)
			printf("              %" JSON_INTEGER_FORMAT " %s weights changed\n",
			       n_changed, n_changed == 1 ? "vertex's" : "vertices'");
	}
}

int rig_ctl_print_receipt(const json_t *r)
{
	const char *id = json_string_value(json_object_get(r, "receiptId"));
	const char *shot = json_string_value(json_object_get(r, "shotId"));
	const char *actor = json_string_value(json_object_get(r, "actor"));
	const char *at = json_string_value(json_object_get(r, "appliedAt"));
	const char *key = json_string_value(json_object_get(r, "idempotencyKey"));
	json_int_t from = json_integer_value(json_object_get(r, "fromVersion"));
	json_int_t to = json_integer_value(json_object_get(r, "toVersion"));
	const char *plan = json_string_value(json_object_get(r, "planId"));
	json_t *changed = json_object_get(r, "changedLayers");
	if (json_is_true(json_object_get(r, "dryRun")))
		printf("dry run: the batch is valid; nothing was written\n");
	printf("receipt  %s\n", id ? id : "-");
	const char *reverts = json_string_value(json_object_get(r, "revertOf"));
	if (reverts)
		printf("reverts  %s\n", reverts);
	printf("shot     %s  version %" JSON_INTEGER_FORMAT " → %" JSON_INTEGER_FORMAT "%s\n",
	       shot ? shot : "?", from, to,
	       json_is_true(json_object_get(r, "dryRun")) ? " (if applied)" : "");
	printf("actor    %s\n", actor ? actor : "-");
	if (at)
		printf("%s  %s\n",
		       json_is_true(json_object_get(r, "dryRun")) ? "checked" : "applied", at);
	if (key)
		printf("key      %s\n", key);
	if (plan)
		printf("plan     %s  version %" JSON_INTEGER_FORMAT "\n", plan,
		       json_integer_value(json_object_get(r, "planVersion")));
	rig_ctl_print_ops(json_object_get(r, "ops"));
	printf("changed  ");
	for (size_t i = 0; i < json_array_size(changed); i++)
		printf("%s%s", i ? ", " : "", json_string_value(json_array_get(changed, i)));
	printf("%s\n", json_array_size(changed) ? "" : "-");
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}
