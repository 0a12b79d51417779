/* rigctl commands that read and manage resources: projects, shots, layers
 * and receipts (their paged lists stream through rig_ctl_list_pages). Edits,
 * frame ranges, plans and locks have their own files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/table.h"
#include "clients/url.h"

/* ================================ projects ================================ */

static void project_cells(struct rig_table *t, json_t *p)
{
	rig_ctl_cell(t, p, "projectId");
	rig_ctl_cell(t, p, "name");
	rig_ctl_cell(t, p, "createdAt");
}

static const struct rig_ctl_list_view project_view = {
	"projects", 3, {"project", "name", "created"}, {0}, project_cells, NULL};

/* Runs one request and prints the object it answers. */
static int call_and_print(struct rig_ctl *c, const char *method, const char *tgt,
			  const json_t *body, const char *if_match)
{
	json_t *out = NULL;
	int rc = rig_ctl_call(c, method, tgt, body, rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY),
			      if_match, &out);
	if (rc == RIG_EXIT_OK)
		rc = rig_ctl_print_object(c, out);
	json_decref(out);
	return rc;
}

int rig_ctl_projects(struct rig_ctl *c)
{
	struct rig_url u;
	json_t *body = NULL;
	int rc;
	rig_url_init(&u);
	switch (c->cmd) {
	case RIG_CTL_PROJECTS_LIST:
		rc = rig_ctl_list_pages(c, "/v1/projects", &project_view, true);
		break;
	case RIG_CTL_PROJECTS_CREATE:
		body = json_pack("{s:s}", "name", c->args[0]);
		if (body && rig_ctl_opt(c, RIG_CTL_O_ID))
			json_object_set_new(body, "projectId",
					    json_string(rig_ctl_opt(c, RIG_CTL_O_ID)));
		rc = body ? call_and_print(c, "POST", rig_ctl_target(&u, "projects", NULL, NULL),
					   body, NULL)
			  : rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		break;
	case RIG_CTL_PROJECTS_SHOW:
		rc = call_and_print(c, "GET", rig_ctl_target(&u, "projects", c->args[0], NULL),
				    NULL, NULL);
		break;
	default:
		rc = call_and_print(c, "DELETE", rig_ctl_target(&u, "projects", c->args[0], NULL),
				    NULL, NULL);
		break;
	}
	rig_url_release(&u);
	json_decref(body);
	return rc;
}

/* ================================= shots ================================= */

static void shot_cells(struct rig_table *t, json_t *s)
{
	char a[RIG_OUT_DOUBLE_MAX], b[RIG_OUT_DOUBLE_MAX];
	rig_ctl_cell(t, s, "shotId");
	rig_ctl_cell(t, s, "name");
	rig_ctl_cell(t, s, "fps");
	rig_out_double(a, json_number_value(json_object_get(s, "frameStart")));
	rig_out_double(b, json_number_value(json_object_get(s, "frameEnd")));
	rig_table_cellf(t, "%s–%s", a, b);
	rig_ctl_cell(t, s, "version");
	rig_ctl_cell(t, s, "createdAt");
}

static const struct rig_ctl_list_view shot_view = {
	"shots",
	6,
	{"shot", "name", "fps", "frames", "version", "created"},
	{0, 0, 1, 1, 1, 0},
	shot_cells,
	NULL};

/* The body of shots create, or NULL with the failure printed (*rc set). */
static json_t *shot_body(struct rig_ctl *c, int *rc)
{
	static const struct {
		enum rig_ctl_opt opt;
		const char *field;
	} numbers[] = {{RIG_CTL_O_FPS, "fps"},
		       {RIG_CTL_O_FRAME_START, "frameStart"},
		       {RIG_CTL_O_FRAME_END, "frameEnd"}};
	json_t *body = json_pack("{s:s}", "name", c->args[0]);
	if (!body) {
		*rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		return NULL;
	}
	if (rig_ctl_opt(c, RIG_CTL_O_ID))
		json_object_set_new(body, "shotId", json_string(rig_ctl_opt(c, RIG_CTL_O_ID)));
	for (size_t i = 0; i < 3; i++)
		if (rig_ctl_opt(c, numbers[i].opt))
			json_object_set_new(body, numbers[i].field,
					    json_real(rig_ctl_number(c, numbers[i].opt)));
	return body;
}

static int shot_show(struct rig_ctl *c)
{
	struct rig_url u;
	json_t *shot = NULL;
	rig_url_init(&u);
	int rc = rig_ctl_call(c, "GET", rig_ctl_target(&u, "shots", c->args[0], NULL), NULL, NULL,
			      NULL, &shot);
	rig_url_release(&u);
	if (rc != RIG_EXIT_OK)
		return rc;
	if (c->format != RIG_CTL_TABLE) {
		rc = rig_ctl_print_json(shot);
	} else {
		static const char *const skip[] = {"layers", NULL};
		rc = rig_ctl_print_fields(shot, skip);
		if (rc == RIG_EXIT_OK) {
			printf("\n");
			rc = rig_ctl_print_tree(json_object_get(shot, "layers"));
		}
	}
	json_decref(shot);
	return rc;
}

int rig_ctl_shots(struct rig_ctl *c)
{
	struct rig_url u;
	const char *project = rig_ctl_opt(c, RIG_CTL_O_PROJECT);
	char if_match[40];
	json_t *body = NULL;
	int rc = RIG_EXIT_OK;
	snprintf(if_match, sizeof if_match, "\"%lld\"", rig_ctl_int(c, RIG_CTL_O_IF_MATCH));
	rig_url_init(&u);
	switch (c->cmd) {
	case RIG_CTL_SHOTS_LIST:
		rc = rig_ctl_list_pages(c, rig_ctl_target(&u, "projects", project, "/shots"),
					&shot_view, true);
		break;
	case RIG_CTL_SHOTS_CREATE:
		body = shot_body(c, &rc);
		if (body)
			rc = call_and_print(c, "POST",
					    rig_ctl_target(&u, "projects", project, "/shots"), body,
					    NULL);
		break;
	case RIG_CTL_SHOTS_SHOW:
		rc = shot_show(c);
		break;
	default:
		rc = call_and_print(c, "DELETE", rig_ctl_target(&u, "shots", c->args[0], NULL),
				    NULL, rig_ctl_opt(c, RIG_CTL_O_IF_MATCH) ? if_match : NULL);
		break;
	}
	rig_url_release(&u);
	json_decref(body);
	return rc;
}

/* ================================= layers ================================= */

/* "mesh, skin 4 vertices 2 triangles 2 joints, 3 keys" for one layer. */
static void describe_layer(struct rig_bytes *b, json_t *l)
{
	const char *kind = json_string_value(json_object_get(l, "kind"));
	const char *name = json_string_value(json_object_get(l, "name"));
	const char *id = json_string_value(json_object_get(l, "layerId"));
	json_t *binding = json_object_get(l, "binding");
	json_int_t keys = json_integer_value(json_object_get(l, "keyCount"));
	rig_bytes_printf(b, "%s  (%s", id ? id : "?", kind ? kind : "?");
	if (json_is_object(binding))
		rig_bytes_printf(b,
				 ", %s: %" JSON_INTEGER_FORMAT " vertices, %" JSON_INTEGER_FORMAT
				 " triangles, %" JSON_INTEGER_FORMAT " joints",
				 json_string_value(json_object_get(binding, "kind")),
				 json_integer_value(json_object_get(binding, "vertexCount")),
				 json_integer_value(json_object_get(binding, "triangleCount")),
				 json_integer_value(json_object_get(binding, "jointCount")));
	if (keys)
		rig_bytes_printf(b, ", %" JSON_INTEGER_FORMAT " key%s", keys, keys == 1 ? "" : "s");
	rig_bytes_puts(b, ")");
	if (name && id && strcmp(name, id) != 0)
		rig_bytes_printf(b, "  \"%s\"", name);
}

/* Whether layer i is the last child of its parent (or the last root). */
static bool is_last_sibling(const json_t *layers, size_t i)
{
	json_t *l = json_array_get(layers, i);
	const char *id = json_string_value(json_object_get(l, "layerId"));
	const char *parent = json_string_value(json_object_get(l, "parentId"));
	for (size_t k = i + 1; k < json_array_size(layers) && !parent; k++)
		if (json_is_null(json_object_get(json_array_get(layers, k), "parentId")))
			return false;
	if (!parent || !id)
		return true;
	for (size_t k = 0; k < json_array_size(layers); k++) {
		json_t *p = json_array_get(layers, k);
		const char *pid = json_string_value(json_object_get(p, "layerId"));
		if (pid && strcmp(pid, parent) == 0) {
			json_t *children = json_object_get(p, "children");
			size_t n = json_array_size(children);
			const char *last =
				json_string_value(json_array_get(children, n ? n - 1 : 0));
			return !last || strcmp(last, id) == 0;
		}
	}
	return true;
}

int rig_ctl_print_tree(const json_t *layers)
{
	bool more[64] = {false};
	struct rig_bytes line;
	rig_bytes_init(&line);
	if (json_array_size(layers) == 0)
		printf("(no layers)\n");
	for (size_t i = 0; i < json_array_size(layers); i++) {
		json_t *l = json_array_get(layers, i);
		json_int_t depth = json_integer_value(json_object_get(l, "depth"));
		size_t d = depth < 0 ? 0 : depth > 63 ? 63 : (size_t)depth;
		bool last = is_last_sibling(layers, i);
		rig_bytes_clear(&line);
		for (size_t k = 1; k < d; k++)
			rig_bytes_puts(&line, more[k] ? "│  " : "   ");
		if (d > 0)
			rig_bytes_puts(&line, last ? "└─ " : "├─ ");
		more[d] = !last;
		describe_layer(&line, l);
		printf("%s\n", line.data ? line.data : "");
	}
	rig_bytes_release(&line);
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

/* One layer in table form: its fields, then its keys channel by channel. */
static int print_layer(json_t *l)
{
	static const char *const skip[] = {"keys", NULL};
	int rc = rig_ctl_print_fields(l, skip);
	const char *channel;
	json_t *keys;
	struct rig_bytes b;
	rig_bytes_init(&b);
	json_object_foreach(json_object_get(l, "keys"), channel, keys)
	{
		size_t i;
		json_t *k;
		rig_bytes_clear(&b);
		json_array_foreach(keys, i, k)
		{
			char f[RIG_OUT_DOUBLE_MAX];
			rig_out_double(f, json_number_value(json_object_get(k, "frame")));
			rig_bytes_printf(&b, "%s%s: ", i ? ", " : "", f);
			rig_out_cell(&b, json_object_get(k, "value"));
			const char *interp = json_string_value(json_object_get(k, "interp"));
			if (interp && strcmp(interp, "linear") != 0)
				rig_bytes_printf(&b, " (%s)", interp);
		}
		printf("key %-10s %s\n", channel, b.data ? b.data : "");
	}
	rig_bytes_release(&b);
	return rc;
}

int rig_ctl_layers(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	struct rig_url u;
	json_t *got = NULL;
	rig_url_init(&u);
	rig_ctl_target(&u, "shots", shot, NULL);
	if (c->n_args) {
		rig_url_path(&u, "/layers");
		rig_url_segment(&u, c->args[0]);
	}
	int rc = rig_ctl_call(c, "GET", rig_url_get(&u), NULL, NULL, NULL, &got);
	rig_url_release(&u);
	if (rc != RIG_EXIT_OK)
		return rc;
	json_t *layers = json_object_get(got, "layers");
	if (c->n_args)
		rc = c->format == RIG_CTL_TABLE ? print_layer(got) : rig_ctl_print_json(got);
	else if (c->format == RIG_CTL_TABLE)
		rc = rig_ctl_print_tree(layers);
	else if (c->format == RIG_CTL_JSON)
		rc = rig_ctl_print_json(layers);
	else
		for (size_t i = 0; i < json_array_size(layers) && rc == RIG_EXIT_OK; i++)
			rc = rig_ctl_print_json(json_array_get(layers, i));
	json_decref(got);
	return rc;
}

/* ================================ receipts ================================ */

static void receipt_cells(struct rig_table *t, json_t *r)
{
	json_t *changed = json_object_get(r, "changedLayers");
	struct rig_bytes b;
	rig_bytes_init(&b);
	rig_ctl_cell(t, r, "receiptId");
	rig_table_cellf(t, "%" JSON_INTEGER_FORMAT "→%" JSON_INTEGER_FORMAT,
			json_integer_value(json_object_get(r, "fromVersion")),
			json_integer_value(json_object_get(r, "toVersion")));
	rig_ctl_cell(t, r, "actor");
	rig_ctl_cell(t, r, "appliedAt");
	rig_table_cellf(t, "%zu", json_array_size(json_object_get(r, "ops")));
	for (size_t i = 0; i < json_array_size(changed); i++)
		rig_bytes_printf(&b, "%s%s", i ? ", " : "",
				 json_string_value(json_array_get(changed, i)));
	rig_table_cell(t, b.data ? b.data : "");
	rig_bytes_release(&b);
}

static const struct rig_ctl_list_view receipt_view = {
	"receipts",
	6,
	{"receipt", "version", "actor", "applied", "ops", "changed layers"},
	{0, 1, 0, 0, 1, 0},
	receipt_cells,
	NULL};

int rig_ctl_receipts(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	struct rig_url u;
	int rc;
	if (!c->n_args && !shot)
		return rig_ctl_usage("--shot (or a RECEIPT_ID) is required");
	if (c->n_args &&
	    (shot || rig_ctl_flag(c, RIG_CTL_O_ALL) || rig_ctl_opt(c, RIG_CTL_O_PAGE_SIZE)))
		return rig_ctl_usage("'receipts RECEIPT_ID' takes no --shot, --all or --page-size");
	rig_url_init(&u);
	if (c->n_args) {
		/* One receipt by id. */
		json_t *r = NULL;
		rc = rig_ctl_call(c, "GET", rig_ctl_target(&u, "receipts", c->args[0], NULL), NULL,
				  NULL, NULL, &r);
		if (rc == RIG_EXIT_OK)
			rc = c->format == RIG_CTL_TABLE ? rig_ctl_print_receipt(r)
							: rig_ctl_print_json(r);
		json_decref(r);
	} else {
		rc = rig_ctl_list_pages(c, rig_ctl_target(&u, "shots", shot, "/receipts"),
					&receipt_view, rig_ctl_flag(c, RIG_CTL_O_ALL));
	}
	rig_url_release(&u);
	return rc;
}
