/* Table, CSV, ndjson and json printing of mesh-data pages (mesh_format.h). */
#include "clients/mesh_format.h"

#include <string.h>

#include "clients/bytes.h"
#include "clients/output.h"

/* ---- columns ---- */

struct row;

/* How one collection prints: its columns and the rows of one item. */
struct rig_mesh_kind_format {
	const char *name;
	size_t n;
	const char *csv[12];
	const char *table[12];
	bool right[12];
	int (*rows)(struct rig_mesh_printer *p, struct row *r, json_t *item);
	const char *counted; /* the table footer's noun for its items */
};

/* Fixes the columns: the collection's own, or for one without a format the
 * first item's fields. Called with the first item, or NULL when the output
 * ends empty. */
static void start(struct rig_mesh_printer *p, json_t *first)
{
	const struct rig_mesh_kind_format *c = p->columns;
	bool right[RIG_TABLE_MAX_COLS] = {0};
	p->started = true;
	if (c) {
		p->n_cols = c->n;
		for (size_t i = 0; i < c->n; i++) {
			p->cols[i] = p->format == RIG_MESH_CSV ? c->csv[i] : c->table[i];
			right[i] = c->right[i];
		}
	} else if (json_is_object(first)) {
		const char *key;
		json_t *v;
		p->first_item = json_incref(first);
		json_object_foreach(first, key, v)
		{
			if (p->n_cols == RIG_TABLE_MAX_COLS)
				break;
			right[p->n_cols] = json_is_number(v);
			p->cols[p->n_cols++] = key;
		}
	}
	if (p->format == RIG_MESH_TABLE)
		rig_table_init(&p->table, p->n_cols, p->cols, right);
}

/* ---- rows ---- */

/* The cells of one row, each NUL-terminated in text. */
struct row {
	struct rig_bytes text;
	size_t n;
	bool oom;
};

static void cell(struct row *r, const json_t *v)
{
	if (r->oom || rig_out_cell(&r->text, v) != 0 || rig_bytes_append(&r->text, "", 1) != 0)
		r->oom = true;
	r->n++;
}

static int emit_row(struct rig_mesh_printer *p, struct row *r)
{
	int rc = r->oom ? -1 : 0;
	const char *c = r->text.data;
	for (size_t i = 0; i < r->n && rc == 0; i++, c += strlen(c) + 1) {
		if (p->format == RIG_MESH_TABLE) {
			rc = rig_table_cell(&p->table, c);
		} else {
			if (i && fputc(',', p->out) == EOF)
				rc = -1;
			if (rc == 0)
				rc = rig_out_csv_field(p->out, c);
		}
	}
	if (rc == 0 && p->format == RIG_MESH_CSV && fputc('\n', p->out) == EOF)
		rc = -1;
	rig_bytes_clear(&r->text);
	r->n = 0;
	r->oom = false;
	return rc;
}

/* The rows of one item of each collection: most give one; weights give one
 * per influence, keyframes one per key vertex. */
static int vertex_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	cell(r, json_object_get(item, "vertexIndex"));
	cell(r, json_object_get(item, "x"));
	cell(r, json_object_get(item, "y"));
	return emit_row(p, r);
}

static int triangle_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	json_t *idx = json_object_get(item, "indices");
	cell(r, json_object_get(item, "triangleIndex"));
	for (size_t k = 0; k < 3; k++)
		cell(r, json_array_get(idx, k));
	return emit_row(p, r);
}

static int joint_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	json_t *bind = json_object_get(item, "bind");
	cell(r, json_object_get(item, "jointId"));
	cell(r, json_object_get(item, "layerId"));
	for (size_t e = 0; e < 6; e++)
		cell(r, json_array_get(bind, e));
	return emit_row(p, r);
}

static int weight_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	int rc = 0;
	json_t *vertex = json_object_get(item, "vertexIndex");
	json_t *list = json_object_get(item, "influences");
	size_t n = json_array_size(list);
	/* A vertex without influences still gets a row, with empty fields. */
	for (size_t k = 0; k < (n ? n : 1) && rc == 0; k++) {
		json_t *inf = json_array_get(list, k);
		/* In a table the vertex shows on its first row only. */
		cell(r, k && p->format == RIG_MESH_TABLE ? NULL : vertex);
		cell(r, json_object_get(inf, "jointId"));
		cell(r, json_object_get(inf, "weight"));
		rc = emit_row(p, r);
	}
	return rc;
}

/* An item is a piece of one key (see openapi.yaml MeshKeyframeItem): one row
 * per vertex; in a table the key shows on its first row. */
static int keyframe_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	int rc = 0;
	json_t *list = json_object_get(item, "vertices");
	json_int_t start = json_integer_value(json_object_get(item, "vertexStart"));
	for (size_t j = 0; j < json_array_size(list) && rc == 0; j++) {
		bool shown = p->format != RIG_MESH_TABLE || (start == 0 && j == 0);
		json_t *v = json_array_get(list, j);
		json_t *index = json_integer(start + (json_int_t)j);
		cell(r, shown ? json_object_get(item, "keyIndex") : NULL);
		cell(r, shown ? json_object_get(item, "frame") : NULL);
		cell(r, shown ? json_object_get(item, "interp") : NULL);
		cell(r, shown ? json_object_get(item, "ease") : NULL);
		cell(r, index);
		cell(r, json_object_get(v, "x"));
		cell(r, json_object_get(v, "y"));
		json_decref(index);
		rc = emit_row(p, r);
	}
	return rc;
}

/* A pin's keys as a table shows them: "rotation 2, overlap 1" (channel, key
 * count), "-" without keys; CSV and the JSON formats have them whole. */
static void pin_keys_cell(struct rig_mesh_printer *p, struct row *r, json_t *keys)
{
	if (p->format != RIG_MESH_TABLE) {
		cell(r, json_object_size(keys) ? keys : NULL);
		return;
	}
	struct rig_bytes text;
	const char *channel;
	json_t *list;
	rig_bytes_init(&text);
	json_object_foreach(keys, channel, list)
	{
		if (rig_bytes_printf(&text, "%s%s %zu", text.len ? ", " : "", channel,
				     json_array_size(list)) != 0)
			r->oom = true;
	}
	json_t *summary = json_string(text.len ? text.data : "-");
	if (!summary)
		r->oom = true;
	cell(r, summary);
	json_decref(summary);
	rig_bytes_release(&text);
}

/* A pin (openapi.yaml PuppetPinItem): its rest point, anchor vertex, static
 * values and keys, one row. */
static int pin_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	static const char *const fields[] = {"pinIndex",    "id",           "x",         "y",
					     "vertexIndex", "rotation",     "stiffness", "scale",
					     "overlap",     "overlapExtent"};
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
		cell(r, json_object_get(item, fields[k]));
	pin_keys_cell(p, r, json_object_get(item, "keys"));
	return emit_row(p, r);
}

/* A vertex's pin weights: one row per pin weighing on it, as weights do per
 * influence. */
static int pin_weight_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	int rc = 0;
	json_t *vertex = json_object_get(item, "vertexIndex");
	json_t *list = json_object_get(item, "weights");
	size_t n = json_array_size(list);
	for (size_t k = 0; k < (n ? n : 1) && rc == 0; k++) {
		json_t *w = json_array_get(list, k);
		cell(r, k && p->format == RIG_MESH_TABLE ? NULL : vertex);
		cell(r, json_object_get(w, "pinId"));
		cell(r, json_object_get(w, "weight"));
		rc = emit_row(p, r);
	}
	return rc;
}

static const struct rig_mesh_kind_format formats[] = {
	{"vertices",
	 3,
	 {"vertexIndex", "x", "y"},
	 {"vertex", "x", "y"},
	 {1, 1, 1},
	 vertex_rows,
	 NULL},
	{"triangles",
	 4,
	 {"triangleIndex", "i", "j", "k"},
	 {"triangle", "i", "j", "k"},
	 {1, 1, 1, 1},
	 triangle_rows,
	 NULL},
	{"joints",
	 8,
	 {"jointId", "layerId", "a", "b", "c", "d", "e", "f"},
	 {"joint", "layer", "a", "b", "c", "d", "e", "f"},
	 {0, 0, 1, 1, 1, 1, 1, 1},
	 joint_rows,
	 NULL},
	{"weights",
	 3,
	 {"vertexIndex", "jointId", "weight"},
	 {"vertex", "joint", "weight"},
	 {1, 0, 1},
	 weight_rows,
	 NULL},
	/* A keyframes item is a piece of a key (its time and up to 128
	 * vertices), so the count says pieces. */
	{"keyframes",
	 7,
	 {"keyIndex", "frame", "interp", "ease", "vertexIndex", "x", "y"},
	 {"key", "frame", "interp", "ease", "vertex", "x", "y"},
	 {1, 1, 0, 0, 1, 1, 1},
	 keyframe_rows,
	 "keyframe pieces"},
	{"pins",
	 11,
	 {"pinIndex", "id", "x", "y", "vertexIndex", "rotation", "stiffness", "scale", "overlap",
	  "overlapExtent", "keys"},
	 {"index", "pin", "x", "y", "vertex", "rotation", "stiffness", "scale", "overlap", "extent",
	  "keys"},
	 {1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0},
	 pin_rows,
	 NULL},
	/* Counted per vertex, as the server's total is (and as weights are). */
	{"pinWeights",
	 3,
	 {"vertexIndex", "pinId", "weight"},
	 {"vertex", "pin", "weight"},
	 {1, 0, 1},
	 pin_weight_rows,
	 "pin weights"},
};

/* One row of the first item's fields (a collection without a format). */
static int field_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	for (size_t c = 0; c < p->n_cols; c++)
		cell(r, json_object_get(item, p->cols[c]));
	return emit_row(p, r);
}

static int item_rows(struct rig_mesh_printer *p, struct row *r, json_t *item)
{
	return p->columns ? p->columns->rows(p, r, item) : field_rows(p, r, item);
}

static int print_header_csv(struct rig_mesh_printer *p)
{
	for (size_t c = 0; c < p->n_cols; c++) {
		if (c && fputc(',', p->out) == EOF)
			return -1;
		if (rig_out_csv_field(p->out, p->cols[c]) != 0)
			return -1;
	}
	return p->n_cols && fputc('\n', p->out) == EOF ? -1 : 0;
}

/* ---- pages ---- */

void rig_mesh_printer_init(struct rig_mesh_printer *p, enum rig_mesh_format format,
			   const char *kind, FILE *out)
{
	memset(p, 0, sizeof *p);
	p->format = format;
	p->kind = kind;
	p->out = out;
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, kind) == 0)
			p->columns = &formats[i];
}

void rig_mesh_printer_release(struct rig_mesh_printer *p)
{
	if (p->started && p->format == RIG_MESH_TABLE)
		rig_table_release(&p->table);
	json_decref(p->first_item);
	p->first_item = NULL;
}

static int print_json_page(struct rig_mesh_printer *p, json_t *page, const char *raw,
			   size_t raw_len)
{
	/* The body as the server wrote it, unless it spans lines (then re-encode
	 * so each page stays one line under --all). */
	while (raw_len && (raw[raw_len - 1] == '\n' || raw[raw_len - 1] == '\r'))
		raw_len--;
	if (raw && !memchr(raw, '\n', raw_len)) {
		if (fwrite(raw, 1, raw_len, p->out) != raw_len || fputc('\n', p->out) == EOF)
			return -1;
		return 0;
	}
	return rig_out_json_line(p->out, page);
}

int rig_mesh_print_page(struct rig_mesh_printer *p, json_t *page, const char *raw, size_t raw_len)
{
	json_t *items = json_object_get(page, "items");
	size_t n = json_array_size(items);
	int rc = 0;
	p->n_pages++;
	p->n_items += n;
	if (p->format == RIG_MESH_JSON)
		return print_json_page(p, page, raw, raw_len);
	if (p->format == RIG_MESH_NDJSON) {
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = rig_out_json_line(p->out, json_array_get(items, i));
		return rc;
	}
	if (!p->started && n) {
		start(p, json_array_get(items, 0));
		if (p->format == RIG_MESH_CSV)
			rc = print_header_csv(p);
	}
	struct row r = {.n = 0, .oom = false};
	rig_bytes_init(&r.text);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = item_rows(p, &r, json_array_get(items, i));
	rig_bytes_release(&r.text);
	if (rc == 0 && p->format == RIG_MESH_TABLE && p->started)
		rc = rig_table_flush(&p->table, p->out);
	return rc;
}

static int print_footer(struct rig_mesh_printer *p, json_t *last, bool more)
{
	const char *shot = json_string_value(json_object_get(last, "shotId"));
	const char *layer = json_string_value(json_object_get(last, "layerId"));
	json_t *total = json_object_get(last, "total");
	json_t *version = json_object_get(last, "shotVersion");
	json_t *frame = json_object_get(last, "frame");
	const char *space = json_string_value(json_object_get(last, "space"));
	const char *kind = p->columns && p->columns->counted ? p->columns->counted : p->kind;
	if (p->n_items)
		fputc('\n', p->out);
	fprintf(p->out, "%zu %s", p->n_items, kind);
	if (json_is_integer(total))
		fprintf(p->out, " of %" JSON_INTEGER_FORMAT, json_integer_value(total));
	fprintf(p->out, " · shot %s layer %s", shot ? shot : "?", layer ? layer : "?");
	if (json_is_integer(version))
		fprintf(p->out, " version %" JSON_INTEGER_FORMAT, json_integer_value(version));
	if (json_is_number(frame)) {
		char f[RIG_OUT_DOUBLE_MAX];
		rig_out_double(f, json_number_value(frame));
		fprintf(p->out, " · frame %s, %s space", f, space ? space : "local");
	}
	fputc('\n', p->out);
	const char *next = json_string_value(json_object_get(last, "nextPageToken"));
	if (more && next)
		fprintf(p->out, "next page: --page-token %s   (or --all for everything)\n", next);
	return ferror(p->out) ? -1 : 0;
}

int rig_mesh_print_end(struct rig_mesh_printer *p, json_t *last, bool more)
{
	if (p->format == RIG_MESH_JSON || p->format == RIG_MESH_NDJSON)
		return 0;
	int rc = 0;
	if (!p->started) {
		start(p, NULL);
		if (p->format == RIG_MESH_CSV)
			rc = print_header_csv(p);
	}
	if (rc == 0 && p->format == RIG_MESH_TABLE)
		rc = print_footer(p, last, more);
	return rc;
}
