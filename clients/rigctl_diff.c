/* rigctl diff SHOT_ID --from N --to M: what changed between two versions of
 * a shot (GET /v1/shots/{shotId}/diff). Every page is fetched (following
 * nextPageToken to the end) and a layer's continuation items are folded
 * into its record, so each format sees whole records: json one document
 * (the first page's members, every layer), ndjson one layer per line, table
 * one row per changed thing (fields, a channel's keys, a binding part, a
 * constraint), index runs as "3,7,10-99".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/bytes.h"
#include "clients/report.h"
#include "clients/rigctl.h"

/* Appends the runs of item's part lists to those of head (a continuation). */
static void fold_parts(json_t *head, json_t *item)
{
	json_t *parts = json_object_get(json_object_get(item, "binding"), "parts");
	json_t *into = json_object_get(json_object_get(head, "binding"), "parts");
	const char *name;
	json_t *part;
	json_object_foreach(parts, name, part)
	{
		const char *list_name;
		json_t *list;
		json_t *target = json_object_get(into, name);
		json_object_foreach(part, list_name, list)
		{
			json_t *to = json_object_get(target, list_name);
			if (json_is_array(to))
				json_array_extend(to, list);
		}
	}
}

/* Fetches every page into *out: the first page with every layer item of
 * all pages in "layers", continuations folded. Returns an exit code. */
static int fetch_all(struct rig_ctl *c, const char *shot, json_t **out)
{
	json_t *all = NULL, *page = NULL;
	char *token = NULL;
	int rc = RIG_EXIT_OK;
	for (;;) {
		struct rig_url u;
		rig_url_init(&u);
		rig_ctl_target(&u, "shots", shot, "/diff");
		rig_url_query(&u, "from", rig_ctl_opt(c, RIG_CTL_O_VERSION_FROM));
		rig_url_query(&u, "to", rig_ctl_opt(c, RIG_CTL_O_VERSION_TO));
		rig_url_query(&u, "maxBytes", rig_ctl_opt(c, RIG_CTL_O_MAX_BYTES));
		rig_url_query(&u, "pageToken", token);
		rc = rig_ctl_call(c, "GET", rig_url_get(&u), NULL, NULL, NULL, &page);
		rig_url_release(&u);
		if (rc != RIG_EXIT_OK)
			goto out;
		json_t *items = json_object_get(page, "layers");
		if (!all) {
			all = json_deep_copy(page);
			json_object_set_new(all, "layers", json_array());
			json_object_del(all, "nextPageToken");
			json_object_del(all, "limitedBy");
		}
		json_t *layers = json_object_get(all, "layers");
		size_t i;
		json_t *item;
		json_array_foreach(items, i, item)
		{
			size_t n = json_array_size(layers);
			json_t *last = n ? json_array_get(layers, n - 1) : NULL;
			if (json_is_true(json_object_get(item, "continued")) && last)
				fold_parts(last, item);
			else
				json_array_append(layers, item);
		}
		const char *next = json_string_value(json_object_get(page, "nextPageToken"));
		if (!next)
			break;
		if ((rc = rig_report_next_token(stderr, RIG_CTL_PROG, &token, next)) != RIG_EXIT_OK)
			goto out;
		json_decref(page);
		page = NULL;
	}
	*out = all;
	all = NULL;
out:
	json_decref(all);
	json_decref(page);
	free(token);
	return rc;
}

/* "3,7,10-99" of a run list; "-" when empty. */
static void runs_text(struct rig_bytes *b, json_t *runs)
{
	size_t i;
	json_t *r;
	json_array_foreach(runs, i, r)
	{
		char s[64];
		if (json_is_array(r))
			snprintf(s, sizeof s, "%s%lld-%lld", i ? "," : "",
				 (long long)json_integer_value(json_array_get(r, 0)),
				 (long long)json_integer_value(json_array_get(r, 1)));
		else
			snprintf(s, sizeof s, "%s%lld", i ? "," : "",
				 (long long)json_integer_value(r));
		rig_bytes_puts(b, s);
	}
	if (!b->len)
		rig_bytes_puts(b, "-");
}

/* "name,parentId" of an array of strings or numbers, prefixed. */
static void list_text(struct rig_bytes *b, const char *prefix, json_t *list)
{
	if (!json_array_size(list))
		return;
	if (b->len)
		rig_bytes_puts(b, " ");
	rig_bytes_puts(b, prefix);
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
	{
		char s[64];
		if (i)
			rig_bytes_puts(b, ",");
		if (json_is_string(v)) {
			rig_bytes_puts(b, json_string_value(v));
		} else {
			snprintf(s, sizeof s, "%.17g", json_number_value(v));
			rig_bytes_puts(b, s);
		}
	}
}

static void row(struct rig_table *t, const char *layer, const char *change, const char *what,
		const char *detail)
{
	rig_table_cell(t, layer);
	rig_table_cell(t, change);
	rig_table_cell(t, what);
	rig_table_cell(t, detail && *detail ? detail : "-");
}

/* added/removed/changed lists as "+0,10 -5 ~20". */
static void abc_text(struct rig_bytes *b, json_t *o)
{
	list_text(b, "+", json_object_get(o, "added"));
	list_text(b, "-", json_object_get(o, "removed"));
	list_text(b, "~", json_object_get(o, "changed"));
}

/* A part of index runs has its total and one list of runs, named as its kind
 * names it (changedVertices, changedTriangles, …); NULL for a part of
 * another shape ({added, removed, changed}). */
static json_t *part_runs(json_t *part)
{
	if (!json_is_integer(json_object_get(part, "total")))
		return NULL;
	const char *name;
	json_t *list;
	json_object_foreach(part, name, list)
	{
		if (json_is_array(list))
			return list;
	}
	return NULL;
}

static void layer_rows(struct rig_table *t, json_t *item)
{
	const char *id = json_string_value(json_object_get(item, "layerId"));
	const char *change = json_string_value(json_object_get(item, "change"));
	struct rig_bytes b;
	rig_bytes_init(&b);
	json_t *fields = json_object_get(item, "fields");
	bool any = false;
	if (!fields) {
		row(t, id, change, json_string_value(json_object_get(item, "kind")), NULL);
		any = true;
	} else if (json_array_size(fields)) {
		list_text(&b, "", fields);
		row(t, id, change, "fields", b.data);
		any = true;
	}
	const char *ch;
	json_t *keys;
	json_object_foreach(json_object_get(item, "keys"), ch, keys)
	{
		rig_bytes_clear(&b);
		abc_text(&b, keys);
		char what[80];
		snprintf(what, sizeof what, "keys %s", ch);
		row(t, id, change, what, b.data);
		any = true;
	}
	json_t *binding = json_object_get(item, "binding");
	if (binding) {
		rig_bytes_clear(&b);
		const char *from = json_string_value(json_object_get(binding, "kindFrom"));
		const char *to = json_string_value(json_object_get(binding, "kindTo"));
		char s[160];
		snprintf(s, sizeof s, "%s %s -> %s",
			 json_string_value(json_object_get(binding, "change")),
			 from ? from : "none", to ? to : "none");
		row(t, id, change, "binding", s);
		const char *part_name;
		json_t *part;
		json_object_foreach(json_object_get(binding, "parts"), part_name, part)
		{
			rig_bytes_clear(&b);
			json_t *runs = part_runs(part);
			const char *vfrom = json_string_value(json_object_get(part, "from"));
			const char *vto = json_string_value(json_object_get(part, "to"));
			if (runs) {
				runs_text(&b, runs);
				snprintf(s, sizeof s, " (%lld)",
					 (long long)json_integer_value(
						 json_object_get(part, "total")));
				rig_bytes_puts(&b, s);
			} else if (vfrom && vto) { /* a setting: {from, to} (a skin's method) */
				snprintf(s, sizeof s, "%s -> %s", vfrom, vto);
				rig_bytes_puts(&b, s);
			} else {
				abc_text(&b, part);
			}
			row(t, id, change, part_name, b.data);
		}
		any = true;
	}
	if (!any)
		row(t, id, change, "-", NULL);
	rig_bytes_release(&b);
}

static int print_table(json_t *diff)
{
	static const char *const headers[] = {"LAYER", "CHANGE", "WHAT", "DETAIL"};
	struct rig_table t;
	rig_table_init(&t, 4, headers, NULL);
	size_t i;
	json_t *item;
	json_t *layers = json_object_get(diff, "layers");
	json_array_foreach(layers, i, item) layer_rows(&t, item);
	json_t *cons = json_object_get(diff, "constraints");
	static const char *const kinds[] = {"created", "deleted", "changed"};
	size_t n_cons = 0;
	for (int k = 0; k < 3; k++) {
		json_t *id;
		json_array_foreach(json_object_get(cons, kinds[k]), i, id)
		{
			row(&t, json_string_value(id), kinds[k], "constraint", NULL);
			n_cons++;
		}
	}
	int rc = rig_table_flush(&t, stdout);
	rig_table_release(&t);
	if (!json_array_size(layers) && !n_cons)
		printf("(no changes from version %lld to %lld)\n",
		       (long long)json_integer_value(json_object_get(diff, "from")),
		       (long long)json_integer_value(json_object_get(diff, "to")));
	return rc || ferror(stdout)
		       ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
		       : RIG_EXIT_OK;
}

int rig_ctl_diff(struct rig_ctl *c)
{
	json_t *diff = NULL;
	int rc = fetch_all(c, c->args[0], &diff);
	if (rc != RIG_EXIT_OK)
		return rc;
	if (c->format == RIG_CTL_TABLE) {
		rc = print_table(diff);
	} else if (c->format == RIG_CTL_JSON) {
		rc = rig_ctl_print_json(diff);
	} else {
		size_t i;
		json_t *item;
		json_array_foreach(json_object_get(diff, "layers"), i, item)
		{
			if ((rc = rig_ctl_print_json(item)) != RIG_EXIT_OK)
				break;
		}
	}
	json_decref(diff);
	return rc;
}
