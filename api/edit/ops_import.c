/* shot.import {format, document, idPrefix?, parentId?, options?} (issue 26): another
 * tool's document (api/interchange/interchange.h) converted into ordinary ops
 * and run inside the batch, so an import takes locks, plans, dry runs,
 * idempotency keys, checkFrames and receipts like any edit. The receipt's op
 * entry lists the ops it expanded to (expandedOps) and the import report
 * (importReport: what became what, what the format could not carry).
 *
 * The document is converted when the op applies, not when it decodes: frames
 * come from the shot's fps. Its violations point into it
 * (/ops/<i>/document/...); an expanded op's violations point at the part of
 * the document it came from, naming the expanded op (expandedOp, its index in
 * expandedOps, and its wire name). The first expanded op that fails stops the
 * import: the ones after it would build on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/interchange/interchange.h"

struct import_op {
	const struct rig_interchange_format *format;
	json_t *document; /* a reference held */
	json_t *options;  /* a reference held, or NULL */
	struct rig_import_opts opts;
	bool has_parent;
};

/* The prefix is an id's start: empty, or characters ids may hold. */
static bool prefix_is_valid(const char *p)
{
	for (; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == ':' || *p == '-'))
			return false;
	return true;
}

int rig_op__import_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",       "format",  "document", "idPrefix",
					      "parentId", "options", NULL};
	(void)bulk;
	int rc = rig_jr_known(jr, op, allowed);
	struct import_op *im = calloc(1, sizeof *im);
	if (!im)
		return rig_jr_out_of_memory(jr, "document");
	out->u.kind_data = im;
	const char *format = NULL;
	if (rig_jr_string(jr, op, "format", true, 32, &format) == 0 && format) {
		im->format = rig_interchange_find(format);
		if (!im->format || !im->format->import) {
			rc = rig_jr_fail(jr, "format", "format '%s' cannot be imported", format);
			rig_interchange_list(&jr->errs->items[jr->errs->count - 1], "validFormats",
					     true);
		}
	} else {
		rc = -1;
	}
	json_t *doc = json_object_get(op, "document");
	if (!doc)
		rc = rig_jr_fail(jr, "document", "field 'document' is required");
	else if (!json_is_object(doc))
		rc = rig_jr_fail(jr, "document", "field 'document' must be a JSON object");
	else
		im->document = json_incref(doc);
	json_t *options = json_object_get(op, "options");
	if (options && !json_is_object(options))
		rc = rig_jr_fail(jr, "options", "field 'options' must be a JSON object");
	else if (options)
		im->options = json_incref(options);
	const char *prefix = NULL;
	if (rig_jr_string(jr, op, "idPrefix", false, RIG_ID_MAX - 1, &prefix) == 0 && prefix) {
		if (prefix_is_valid(prefix))
			rig_strlcpy(im->opts.id_prefix, prefix, sizeof im->opts.id_prefix);
		else
			rc = rig_jr_fail(jr, "idPrefix",
					 "idPrefix '%s' holds a character ids cannot: use "
					 "[A-Za-z0-9_.:-]",
					 prefix);
	}
	bool root = false;
	rc |= rig_jr_id(jr, op, "parentId", false, true, im->opts.parent_id, &root);
	im->has_parent = im->opts.parent_id[0] != '\0';
	return rc;
}

/* Points violations [from, count) of the expanded op at index i (source: its
 * part of the document) into the document, naming the expanded op. */
static void point_into_document(struct rig_op_ctx *ctx, const struct rig_op *op, size_t from,
				size_t i, const char *name, const char *source)
{
	for (size_t k = from; k < ctx->errs->count; k++) {
		struct rig_err *e = &ctx->errs->items[k];
		snprintf(e->pointer, sizeof e->pointer, "%s/document%s", op->pointer, source);
		rig_err_extra_number(e, "expandedOp", (double)i);
		rig_err_extra(e, "expandedOpName", name);
	}
}

int rig_op__import_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct import_op *im = op->u.kind_data;
	if (im->has_parent && !rig_op__target(ctx, op, im->opts.parent_id, "parentId"))
		return -1;
	im->opts.fps = ctx->model->fps;
	char options_pointer[64];
	snprintf(options_pointer, sizeof options_pointer, "%s/options", op->pointer);
	im->opts.options = im->options;
	im->opts.options_pointer = options_pointer;
	struct rig_import res;
	if (rig_import_init(&res, im->format->name, &im->opts) != 0) {
		rig_import_release(&res);
		rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	char base[RIG_ERR_POINTER_MAX];
	snprintf(base, sizeof base, "%s/document", op->pointer);
	struct rig_jr jr = {ctx->errs, RIG_IMPORT_INVALID, base, op->index};
	size_t before = ctx->errs->total;
	int rc = im->format->import(&res, im->document, &jr);
	if (rc != 0 || ctx->errs->total > before) {
		rig_import_release(&res);
		return -1;
	}
	json_t *listed = json_array();
	for (size_t i = 0; i < json_array_size(res.ops) && rc == 0; i++) {
		json_t *value = json_array_get(res.ops, i);
		const char *name = json_string_value(json_object_get(value, "op"));
		size_t from = ctx->errs->count;
		rc = rig_op__run_expanded(ctx, op, json_incref(value), listed);
		if (rc != 0)
			point_into_document(ctx, op, from, i, name ? name : "",
					    json_string_value(json_array_get(res.sources, i)));
	}
	rig_op__receipt_note(ctx, op, "expandedOps", listed);
	rig_op__receipt_note(ctx, op, "importReport", json_incref(res.report));
	rig_import_release(&res);
	return rc;
}

void rig_op__import_release(struct rig_op *op)
{
	struct import_op *im = op->u.kind_data;
	if (im) {
		json_decref(im->document);
		json_decref(im->options);
	}
	free(im);
	op->u.kind_data = NULL;
}
