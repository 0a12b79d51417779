/* rigctl tessellate, weights auto / paint / set, rig auto and bones suggest:
 * the server's authoring (issue 25) from a terminal. Each command reads its
 * options (and a PNG or polygon file) into one request at the top, reporting
 * every usage problem before anything is sent, then sends it:
 *
 *   tessellate       POST /v1/tessellate with a TessellateRequest and prints
 *                    the mesh; with --shot, one layer.mesh.generate op as an
 *                    edit batch instead, printing the receipt
 *   weights auto     layer.skin.weights.auto
 *   weights paint    layer.skin.weights.paint (one dab; --feather always sent)
 *   weights set      layer.skin.weights.set
 *   rig auto         layer.rig.auto (its TessellateRequest as tessellate's;
 *                    with --image and no --width/--height, the PNG's size)
 *   bones suggest    layer.bones.suggest
 *
 * The edits go through rig_ctl_post_write with the write options of rigctl
 * edit. Values inside their shapes are the server's to check (a radius of 0,
 * an unknown joint, a file that is not a PNG): its problems print as every
 * problem does. Paint strokes of several dabs, `vertices` and `lengths` of
 * weights auto: send the ops with rigctl edit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/base64.h"
#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

/* A PNG file's first 8 bytes, then its IHDR chunk: length 13, "IHDR", width
 * and height as 32-bit big-endian numbers (PNG §5.2, §11.2.2). */
static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
#define PNG_IHDR_END 24

/* ---- the coverage files ---- */

/* The size in pixels an IHDR at the start of png (n bytes) gives, into
 * size[2]. Returns whether the bytes begin as a PNG does (signature, then
 * IHDR); the rest of the file is the server's to check. */
static bool png_size(double size[2], const unsigned char *png, size_t n)
{
	if (n < PNG_IHDR_END || memcmp(png, png_signature, sizeof png_signature) != 0 ||
	    memcmp(png + 12, "IHDR", 4) != 0)
		return false;
	for (int k = 0; k < 2; k++) {
		const unsigned char *p = png + 16 + 4 * k;
		uint32_t v =
			(uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		size[k] = v;
	}
	return true;
}

/* Reads --image into tess's `image` (base64) and, when size is not NULL and
 * the file begins as a PNG, its pixel size into size[2] (*has_size says
 * whether it did). Returns an exit code with the problem printed. */
static int read_image(json_t *tess, const char *path, double size[2], bool *has_size)
{
	struct rig_bytes png, text;
	int rc = RIG_EXIT_OK;
	rig_bytes_init(&png);
	rig_bytes_init(&text);
	if ((rc = rig_ctl_read_file(&png, path)) != RIG_EXIT_OK)
		goto out;
	if (png.len == 0) {
		rc = rig_ctl_usage("--image '%s' is empty", path);
		goto out;
	}
	if (size)
		*has_size = png_size(size, (const unsigned char *)png.data, png.len);
	if (rig_base64_encode(&text, png.data, png.len) != 0 ||
	    json_object_set_new(tess, "image", json_stringn(text.data, text.len)) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
out:
	rig_bytes_release(&text);
	rig_bytes_release(&png);
	return rc;
}

/* Reads --polygon into tess's `polygon` (and `holes`): the file holds a ring
 * [[x, y], ...] or {"polygon": ring, "holes": [ring, ...]}. The rings are
 * the server's to check (TESSELLATE_POLYGON). Returns an exit code with the
 * problem printed. */
static int read_polygon(json_t *tess, const char *path)
{
	struct rig_bytes text;
	json_t *doc = NULL;
	int rc = RIG_EXIT_OK;
	rig_bytes_init(&text);
	if ((rc = rig_ctl_read_file(&text, path)) != RIG_EXIT_OK)
		goto out;
	json_error_t jerr;
	doc = json_loadb(text.data ? text.data : "", text.len, 0, &jerr);
	if (!doc) {
		rc = rig_ctl_usage("--polygon '%s' is not JSON: line %d, column %d: %s", path,
				   jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (json_is_array(doc)) {
		if (json_object_set(tess, "polygon", doc) != 0)
			rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	const char *key;
	json_t *v;
	if (!json_is_object(doc) || !json_object_get(doc, "polygon")) {
		rc = rig_ctl_usage(
			"--polygon '%s' must hold [[x, y], ...] or {\"polygon\": [[x, y], "
			"...], \"holes\": [...]}",
			path);
		goto out;
	}
	json_object_foreach(doc, key, v)
	{
		if (strcmp(key, "polygon") != 0 && strcmp(key, "holes") != 0) {
			rc = rig_ctl_usage(
				"--polygon '%s' has a member '%s': only polygon and holes", path,
				key);
			goto out;
		}
		if (json_object_set(tess, key, v) != 0) {
			rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
			goto out;
		}
	}
out:
	json_decref(doc);
	rig_bytes_release(&text);
	return rc;
}

/* ---- the TessellateRequest (tessellate, rig auto) ---- */

/* Sets o[field] to the number option opt holds (given, or its row's
 * default), when it has one. */
static int number_field(json_t *o, const struct rig_ctl *c, enum rig_ctl_opt opt, const char *field)
{
	if (c->opts[opt].value && json_object_set_new(o, field, json_real(rig_ctl_number(c, opt))))
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* Sets o[field] to the whole number option opt holds (given, or its row's
 * default: --density of rig auto), when it has one. */
static int int_field(json_t *o, const struct rig_ctl *c, enum rig_ctl_opt opt, const char *field)
{
	if (c->opts[opt].value && json_object_set_new(o, field, json_integer(rig_ctl_int(c, opt))))
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* Sets o[field] to the choice option opt: the word as its row spells it
 * (the contract's), the default when it was not given. */
static int choice_field(json_t *o, const struct rig_ctl *c, enum rig_ctl_opt opt, const char *field)
{
	const struct rig_arg *a = &c->opts[opt];
	if (a->choice < 0)
		return RIG_EXIT_OK;
	if (json_object_set_new(o, field, json_string(rig_ctl_options[opt].choices[a->choice])))
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* The rectangle: --width and --height; for rig auto without them, the
 * PNG's size (size, when has_size). tessellate's rows require both, so the
 * problems below are rig auto's. */
static int rectangle(json_t *tess, const struct rig_ctl *c, const double size[2], bool has_size)
{
	bool width = rig_ctl_opt(c, RIG_CTL_O_WIDTH), height = rig_ctl_opt(c, RIG_CTL_O_HEIGHT);
	if (width != height)
		return rig_ctl_usage("--width and --height go together");
	if (!width && !rig_ctl_opt(c, RIG_CTL_O_IMAGE))
		return rig_ctl_usage("'rig auto' needs --width and --height (or an --image to take "
				     "its size from)");
	if (!width && !has_size)
		return rig_ctl_usage("--image '%s' does not begin as a PNG does, so it gives no "
				     "size: add --width and --height",
				     rig_ctl_opt(c, RIG_CTL_O_IMAGE));
	double w = width ? rig_ctl_number(c, RIG_CTL_O_WIDTH) : size[0];
	double h = height ? rig_ctl_number(c, RIG_CTL_O_HEIGHT) : size[1];
	if (json_object_set_new(tess, "width", json_real(w)) != 0 ||
	    json_object_set_new(tess, "height", json_real(h)) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* Builds the TessellateRequest of the options into *out (a new reference).
 * Returns an exit code with the problem printed (*out then NULL). */
static int tessellate_request(json_t **out, const struct rig_ctl *c)
{
	const char *image = rig_ctl_opt(c, RIG_CTL_O_IMAGE);
	const char *polygon = rig_ctl_opt(c, RIG_CTL_O_POLYGON);
	double size[2] = {0, 0}, pivot[2];
	bool has_size = false;
	int rc = RIG_EXIT_OK;
	json_t *tess = json_object();
	*out = NULL;
	if (!tess)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	if (image && polygon)
		rc = rig_ctl_usage("--image and --polygon are two coverages: give one");
	else if (image)
		rc = read_image(tess, image, size, &has_size);
	else if (polygon)
		rc = read_polygon(tess, polygon);
	if (rc == RIG_EXIT_OK)
		rc = rectangle(tess, c, size, has_size);
	if (rc == RIG_EXIT_OK && rig_ctl_opt(c, RIG_CTL_O_PIVOT)) {
		rc = rig_ctl_numbers(pivot, 2, c, RIG_CTL_O_PIVOT);
		if (rc == RIG_EXIT_OK &&
		    json_object_set_new(tess, "pivot",
					json_pack("{s:f,s:f}", "x", pivot[0], "y", pivot[1])) != 0)
			rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	}
	if (rc == RIG_EXIT_OK)
		rc = int_field(tess, c, RIG_CTL_O_DENSITY, "density");
	if (rc == RIG_EXIT_OK)
		rc = number_field(tess, c, RIG_CTL_O_EXPANSION, "expansion");
	if (rc == RIG_EXIT_OK)
		rc = choice_field(tess, c, RIG_CTL_O_MODE, "mode");
	if (rc == RIG_EXIT_OK)
		rc = int_field(tess, c, RIG_CTL_O_ALPHA_THRESHOLD, "alphaThreshold");
	if (rc != RIG_EXIT_OK) {
		json_decref(tess);
		return rc;
	}
	*out = tess;
	return RIG_EXIT_OK;
}

/* ---- the ops ---- */

/* Sets o[field] to the text option opt, when given. */
static int text_field(json_t *o, const struct rig_ctl *c, enum rig_ctl_opt opt, const char *field)
{
	if (!rig_ctl_opt(c, opt))
		return RIG_EXIT_OK;
	json_t *s = rig_ctl_text_json(c, opt);
	if (!s)
		return RIG_EXIT_USAGE;
	if (json_object_set_new(o, field, s) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* Sets op's `bones` from --bones: a whole number of bones (the server
 * checks its range) or a preset name. */
static int bones_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_BONES);
	json_t *v = NULL;
	char *end = NULL;
	long long n = strtoll(text, &end, 10);
	if (strcmp(text, "biped") == 0 || strcmp(text, "quadruped") == 0)
		v = json_string(text);
	else if (end != text && *end == '\0' &&
		 (text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
		v = json_integer(n);
	else
		return rig_ctl_usage("--bones '%s' is not a number of bones, biped or quadruped",
				     text);
	if (json_object_set_new(op, "bones", v) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return RIG_EXIT_OK;
}

/* The op {op: name, layerId: --layer} in *out (a new reference). */
static int layer_op(json_t **out, const struct rig_ctl *c, const char *name)
{
	json_t *layer = rig_ctl_text_json(c, RIG_CTL_O_LAYER);
	*out = layer ? json_pack("{s:s,s:o}", "op", name, "layerId", layer) : NULL;
	if (!layer)
		return RIG_EXIT_USAGE;
	return *out ? RIG_EXIT_OK : rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
}

static int mesh_generate_op(json_t *op, const struct rig_ctl *c)
{
	json_t *tess = NULL;
	int rc = choice_field(op, c, RIG_CTL_O_BINDING, "binding");
	if (rc == RIG_EXIT_OK)
		rc = tessellate_request(&tess, c);
	if (rc == RIG_EXIT_OK && json_object_set_new(op, "tessellate", tess) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	return rc;
}

static int weights_auto_op(json_t *op, const struct rig_ctl *c)
{
	int rc = choice_field(op, c, RIG_CTL_O_METHOD, "method");
	return rc == RIG_EXIT_OK ? int_field(op, c, RIG_CTL_O_MAX_INFLUENCES, "maxInfluences") : rc;
}

static int weights_paint_op(json_t *op, const struct rig_ctl *c)
{
	double center[2];
	int rc = text_field(op, c, RIG_CTL_O_JOINT, "jointId");
	if (rc == RIG_EXIT_OK)
		rc = choice_field(op, c, RIG_CTL_O_PAINT_MODE, "mode");
	if (rc == RIG_EXIT_OK)
		rc = rig_ctl_numbers(center, 2, c, RIG_CTL_O_CENTER);
	if (rc != RIG_EXIT_OK)
		return rc;
	if (json_object_set_new(op, "center", json_pack("[f,f]", center[0], center[1])) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	rc = number_field(op, c, RIG_CTL_O_RADIUS, "radius");
	if (rc == RIG_EXIT_OK)
		rc = number_field(op, c, RIG_CTL_O_STRENGTH, "strength");
	/* the server requires feather: its row's default when not given */
	return rc == RIG_EXIT_OK ? number_field(op, c, RIG_CTL_O_FEATHER, "feather") : rc;
}

static int weights_set_op(json_t *op, const struct rig_ctl *c)
{
	int rc = int_field(op, c, RIG_CTL_O_VERTEX, "vertexIndex");
	if (rc == RIG_EXIT_OK)
		rc = text_field(op, c, RIG_CTL_O_JOINT, "jointId");
	return rc == RIG_EXIT_OK ? number_field(op, c, RIG_CTL_O_WEIGHT, "weight") : rc;
}

static int bones_suggest_op(json_t *op, const struct rig_ctl *c)
{
	int rc = bones_field(op, c);
	const char *parent = rig_ctl_opt(c, RIG_CTL_O_PARENT);
	if (rc == RIG_EXIT_OK && parent && !*parent &&
	    json_object_set_new(op, "parentId", json_null()) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	if (rc == RIG_EXIT_OK && parent && *parent)
		rc = text_field(op, c, RIG_CTL_O_PARENT, "parentId");
	return rc == RIG_EXIT_OK ? text_field(op, c, RIG_CTL_O_ID_PREFIX, "idPrefix") : rc;
}

static int rig_auto_op(json_t *op, const struct rig_ctl *c)
{
	json_t *tess = NULL;
	int rc = tessellate_request(&tess, c);
	if (rc == RIG_EXIT_OK && json_object_set_new(op, "tessellate", tess) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	if (rc == RIG_EXIT_OK)
		rc = bones_field(op, c);
	if (rc == RIG_EXIT_OK)
		rc = choice_field(op, c, RIG_CTL_O_METHOD, "method");
	if (rc == RIG_EXIT_OK)
		rc = int_field(op, c, RIG_CTL_O_MAX_INFLUENCES, "maxInfluences");
	if (rc == RIG_EXIT_OK)
		rc = number_field(op, c, RIG_CTL_O_RIG_FRAME, "frame");
	return rc == RIG_EXIT_OK ? text_field(op, c, RIG_CTL_O_ID_PREFIX, "idPrefix") : rc;
}

/* Each command's op: its name and what fills it. */
static const struct authoring_op {
	rig_arg_cmds cmd;
	const char *name;
	int (*fill)(json_t *op, const struct rig_ctl *c);
} authoring_ops[] = {
	{RIG_CTL_TESSELLATE, "layer.mesh.generate", mesh_generate_op},
	{RIG_CTL_WEIGHTS_AUTO, "layer.skin.weights.auto", weights_auto_op},
	{RIG_CTL_WEIGHTS_PAINT, "layer.skin.weights.paint", weights_paint_op},
	{RIG_CTL_WEIGHTS_SET, "layer.skin.weights.set", weights_set_op},
	{RIG_CTL_RIG_AUTO, "layer.rig.auto", rig_auto_op},
	{RIG_CTL_BONES_SUGGEST, "layer.bones.suggest", bones_suggest_op},
};

/* Posts the command's op as a one-op edit batch and prints the receipt. */
static int edit_one_op(struct rig_ctl *c)
{
	const struct authoring_op *kind = NULL;
	json_t *op = NULL, *body = NULL;
	struct rig_url u;
	int rc;
	rig_url_init(&u);
	for (size_t i = 0; i < sizeof authoring_ops / sizeof authoring_ops[0]; i++)
		if (authoring_ops[i].cmd == c->cmd)
			kind = &authoring_ops[i];
	if ((rc = layer_op(&op, c, kind->name)) != RIG_EXIT_OK ||
	    (rc = kind->fill(op, c)) != RIG_EXIT_OK)
		goto out;
	if (!(body = json_pack("{s:[O]}", "ops", op))) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	if ((rc = rig_ctl_expected_version(c, body)) != RIG_EXIT_OK ||
	    (rc = rig_ctl_fence_opts(c, body)) != RIG_EXIT_OK)
		goto out;
	rig_ctl_target(&u, "shots", rig_ctl_opt(c, RIG_CTL_O_SHOT), "/edits");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	json_decref(op);
	rig_url_release(&u);
	return rc;
}

/* ---- tessellate without --shot ---- */

/* The options that make tessellate an edit: none of them without --shot. */
static const enum rig_ctl_opt edit_only[] = {
	RIG_CTL_O_LAYER,         RIG_CTL_O_BINDING,
	RIG_CTL_O_DRY_RUN,       RIG_CTL_O_EXPECTED_VERSION,
	RIG_CTL_O_LOCK_ID,       RIG_CTL_O_CHECK_FRAMES,
	RIG_CTL_O_FENCING_TOKEN,
};

/* A mesh in table format: its counts and the box its vertices span. */
static int print_mesh(const json_t *mesh)
{
	json_t *source = json_object_get(mesh, "source");
	double lo[2] = {0, 0}, hi[2] = {0, 0};
	size_t i;
	json_t *p;
	json_array_foreach(source, i, p)
	{
		double xy[2] = {json_number_value(json_object_get(p, "x")),
				json_number_value(json_object_get(p, "y"))};
		for (int k = 0; k < 2; k++) {
			if (i == 0 || xy[k] < lo[k])
				lo[k] = xy[k];
			if (i == 0 || xy[k] > hi[k])
				hi[k] = xy[k];
		}
	}
	char box[4][RIG_OUT_DOUBLE_MAX];
	rig_out_double(box[0], lo[0]);
	rig_out_double(box[1], hi[0]);
	rig_out_double(box[2], lo[1]);
	rig_out_double(box[3], hi[1]);
	printf("vertices   %" JSON_INTEGER_FORMAT "\n",
	       json_integer_value(json_object_get(mesh, "vertexCount")));
	printf("triangles  %" JSON_INTEGER_FORMAT "\n",
	       json_integer_value(json_object_get(mesh, "triangleCount")));
	if (json_array_size(source))
		printf("bounds     x %s to %s, y %s to %s\n", box[0], box[1], box[2], box[3]);
	printf("(--format json prints the mesh: source, triangles, uvs)\n");
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

static int tessellate_route(struct rig_ctl *c)
{
	json_t *tess = NULL, *mesh = NULL;
	int rc;
	for (size_t i = 0; i < sizeof edit_only / sizeof edit_only[0]; i++)
		if (rig_ctl_flag(c, edit_only[i]))
			return rig_ctl_usage(
				"--%s needs --shot (without it tessellate stores nothing)",
				rig_ctl_options[edit_only[i]].name);
	if ((rc = tessellate_request(&tess, c)) != RIG_EXIT_OK)
		return rc;
	rc = rig_ctl_call(c, "POST", "/v1/tessellate", tess,
			  rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), NULL, &mesh);
	if (rc == RIG_EXIT_OK)
		rc = c->format == RIG_CTL_TABLE ? print_mesh(mesh) : rig_ctl_print_json(mesh);
	json_decref(mesh);
	json_decref(tess);
	return rc;
}

int rig_ctl_authoring(struct rig_ctl *c)
{
	if (c->cmd != RIG_CTL_TESSELLATE)
		return edit_one_op(c);
	if (!rig_ctl_opt(c, RIG_CTL_O_SHOT))
		return tessellate_route(c);
	if (!rig_ctl_opt(c, RIG_CTL_O_LAYER))
		return rig_ctl_usage("--layer is required with --shot: the mesh layer to install "
				     "the mesh on");
	if (!rig_ctl_opt(c, RIG_CTL_O_BINDING))
		return rig_ctl_usage("--binding is required with --shot: skin, mesh or puppet");
	return edit_one_op(c);
}
