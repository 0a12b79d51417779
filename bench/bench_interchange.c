/* bench_interchange: importing and exporting a 60-bone, 10-mesh, 5,000-key
 * Spine document (and a .rig2d.json of the same skeleton and meshes), beside
 * parsing the same bytes with jansson alone, in the same run (issue 26).
 *
 * Import is the whole of shot.import but the database: parse, convert, decode
 * and apply every expanded op to an empty in-memory shot, validate it. Export
 * writes that shot in each format that exports. Medians of `rounds` runs,
 * each phase interleaved with its baseline so drift weighs on both.
 *   bench_interchange [rounds]   (default 21)
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops.h"
#include "api/interchange/interchange.h"
#include "bench/bench_util.h"

#define BONES 60
#define MESHES 10
#define GRID 10 /* a mesh is GRID × GRID cells */
#define KEYS 5000

/* The skeleton: a spine of 20 bones and 4 limbs of 10 hanging off it. */
static int parent_of(int b)
{
	if (b == 0)
		return -1;
	if (b < 20)
		return b - 1;
	int limb = (b - 20) / 10, at = (b - 20) % 10;
	return at ? b - 1 : 4 + 4 * limb;
}

/* A Spine 4.2 document: weighted grid meshes (2 influences a vertex), one
 * animation with KEYS rotate/translate keys over the bones, bezier curves. */
static json_t *spine_doc(void)
{
	json_t *bones = json_array(), *slots = json_array(), *atts = json_object();
	for (int b = 0; b < BONES; b++) {
		char name[16], parent[16];
		snprintf(name, sizeof name, "b%d", b);
		json_t *bone =
			json_pack("{s:s, s:f, s:f, s:f, s:f}", "name", name, "length", 20.0, "x",
				  b ? 20.0 : 0.0, "y", 0.0, "rotation", b % 7 ? 3.0 : -8.0);
		if (parent_of(b) >= 0) {
			snprintf(parent, sizeof parent, "b%d", parent_of(b));
			json_object_set_new(bone, "parent", json_string(parent));
		}
		json_array_append_new(bones, bone);
	}
	for (int m = 0; m < MESHES; m++) {
		char slot[16], bone[16];
		snprintf(slot, sizeof slot, "s%d", m);
		snprintf(bone, sizeof bone, "b%d", 6 * m);
		json_array_append_new(slots, json_pack("{s:s, s:s, s:s}", "name", slot, "bone",
						       bone, "attachment", slot));
		json_t *uvs = json_array(), *tris = json_array(), *verts = json_array();
		for (int j = 0; j <= GRID; j++)
			for (int i = 0; i <= GRID; i++) {
				double u = (double)i / GRID, v = (double)j / GRID;
				json_array_append_new(uvs, json_real(u));
				json_array_append_new(uvs, json_real(v));
				int b0 = 6 * m, b1 = b0 + 1 < BONES ? b0 + 1 : b0;
				double w1 = u;
				json_array_append_new(verts, json_integer(b1 == b0 ? 1 : 2));
				json_array_append_new(verts, json_integer(b0));
				json_array_append_new(verts, json_real(40 * u));
				json_array_append_new(verts, json_real(20 * v - 10));
				json_array_append_new(verts, json_real(b1 == b0 ? 1 : 1 - w1));
				if (b1 != b0) {
					json_array_append_new(verts, json_integer(b1));
					json_array_append_new(verts, json_real(40 * u - 20));
					json_array_append_new(verts, json_real(20 * v - 10));
					json_array_append_new(verts, json_real(w1));
				}
			}
		for (int j = 0; j < GRID; j++)
			for (int i = 0; i < GRID; i++) {
				int a = j * (GRID + 1) + i;
				int t[6] = {a,     a + 1,        a + GRID + 1,
					    a + 1, a + GRID + 2, a + GRID + 1};
				for (int k = 0; k < 6; k++)
					json_array_append_new(tris, json_integer(t[k]));
			}
		json_object_set_new(atts, slot,
				    json_pack("{s:{s:s, s:o, s:o, s:o, s:i}}", slot, "type", "mesh",
					      "uvs", uvs, "triangles", tris, "vertices", verts,
					      "hullLength", 4 * GRID));
	}
	json_t *timelines = json_object();
	int per_bone = KEYS / BONES / 2; /* rotate and translate keys per bone */
	for (int b = 0; b < BONES; b++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", b);
		json_t *rot = json_array(), *tr = json_array();
		for (int k = 0; k < per_bone + (b < (KEYS / 2) % BONES); k++) {
			double t = k / 24.0, a = 10 * sin(k + b);
			json_array_append_new(rot, json_pack("{s:f, s:f, s:[f, f, f, f]}", "time",
							     t, "value", a, "curve", t + 0.01, a,
							     t + 0.03, a + 1));
			json_array_append_new(tr, json_pack("{s:f, s:f, s:f}", "time", t, "x",
							    cos(k), "y", sin(k)));
		}
		json_object_set_new(timelines, name,
				    json_pack("{s:o, s:o}", "rotate", rot, "translate", tr));
	}
	return json_pack("{s:{s:s}, s:o, s:o, s:[{s:s, s:o}], s:{s:{s:o}}}", "skeleton", "spine",
			 "4.2.43", "bones", bones, "slots", slots, "skins", "name", "default",
			 "attachments", atts, "animations", "walk", "bones", timelines);
}

/* The same skeleton and meshes as .rig2d.json (version 2, one part a mesh). */
static json_t *rig2d_doc(void)
{
	json_t *bones = json_array(), *parts = json_array();
	for (int b = 0; b < BONES; b++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", b);
		json_array_append_new(bones, json_pack("{s:s, s:i, s:f, s:f, s:f}", "name", name,
						       "parent", parent_of(b), "x", b ? 20.0 : 0.0,
						       "y", 0.0, "rot", 0.05));
	}
	for (int m = 0; m < MESHES; m++) {
		json_t *verts = json_array(), *uvs = json_array(), *tris = json_array();
		json_t *idx = json_array(), *wts = json_array();
		for (int j = 0; j <= GRID; j++)
			for (int i = 0; i <= GRID; i++) {
				double u = (double)i / GRID, v = (double)j / GRID;
				json_array_append_new(verts, json_pack("[f, f]", 40 * u, 20 * v));
				json_array_append_new(uvs, json_pack("[f, f]", u, v));
				int b0 = 6 * m;
				json_t *slots = json_pack("[i, i, i, i]", b0, b0 + 1, 0, 0);
				json_array_extend(idx, slots);
				json_decref(slots);
				json_array_append_new(wts, json_real(u == 0 ? 1 : 1 - u));
				json_array_append_new(wts, json_real(u == 0 ? 0 : u));
				json_array_append_new(wts, json_real(0));
				json_array_append_new(wts, json_real(0));
			}
		for (int j = 0; j < GRID; j++)
			for (int i = 0; i < GRID; i++) {
				int a = j * (GRID + 1) + i;
				int t[6] = {a,     a + GRID + 1, a + 1,
					    a + 1, a + GRID + 1, a + GRID + 2};
				for (int k = 0; k < 6; k++)
					json_array_append_new(tris, json_integer(t[k]));
			}
		char name[16];
		snprintf(name, sizeof name, "m%d", m);
		json_array_append_new(parts,
				      json_pack("{s:s, s:{s:o, s:o, s:o}, s:o, s:o}", "name", name,
						"mesh", "verts", verts, "uvs", uvs, "tris", tris,
						"skinIndices", idx, "skinWeights", wts));
	}
	return json_pack("{s:i, s:o, s:o}", "version", 2, "bones", bones, "parts", parts);
}

/* Imports text as format into *model (left for the exports); exits on
 * refusal: a benchmark of a failing import measures nothing. */
static void import_into(struct rig_shot_model *model, const char *text, const char *format)
{
	json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	json_t *op = json_pack("{s:s, s:s, s:o}", "op", "shot.import", "format", format, "document",
			       doc);
	struct rig_errs *errs = rig_errs_new();
	memset(model, 0, sizeof *model);
	model->fps = 24;
	strcpy(model->id, "s");
	struct rig_op decoded;
	struct rig_op_ctx ctx;
	if (!op || !errs || rig_op_decode(&decoded, op, 0, NULL, errs) != 0 ||
	    rig_op_ctx_init(&ctx, model, NULL, errs) != 0) {
		fprintf(stderr, "bench_interchange: cannot decode the %s import\n", format);
		exit(1);
	}
	if (rig_op_apply(&ctx, &decoded) != 0 || rig_ops_validate_shot(&ctx) != 0) {
		fprintf(stderr, "bench_interchange: the %s import failed: %s (%s)\n", format,
			errs->count ? errs->items[0].detail : "?",
			errs->count ? errs->items[0].pointer : "");
		exit(1);
	}
	rig_op_ctx_release(&ctx);
	rig_op_release(&decoded);
	json_decref(op);
	rig_errs_free(errs);
}

static size_t export_as(const struct rig_interchange_format *f, const struct rig_shot_model *m)
{
	struct rig_scene_view view;
	void **defs = bench_xcalloc(m->n_layers ? m->n_layers : 1, sizeof *defs);
	for (size_t i = 0; i < m->n_layers; i++)
		defs[i] = m->layers[i].binding.def;
	struct rig_errs *errs = rig_errs_new();
	struct rig_export out = {.report = rig_export_report_new(f->name)};
	if (rig_scene_view_init(&view, m) != 0 || !errs ||
	    f->export(&out, &(struct rig_export_in){m, &view, defs}, errs) != 0) {
		fprintf(stderr, "bench_interchange: the %s export failed\n", f->name);
		exit(1);
	}
	size_t len = out.len;
	free(out.body);
	json_decref(out.report);
	rig_errs_free(errs);
	rig_scene_view_release(&view);
	free(defs);
	return len;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static void bench_format(const char *format, json_t *doc, int rounds)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	const struct rig_interchange_format *f = rig_interchange_find(format);
	if (!f || !f->import) {
		printf("%-6s import: not built into this rigd\n", format);
		free(text);
		return;
	}
	double *parse = bench_xcalloc((size_t)rounds, sizeof *parse);
	double *import = bench_xcalloc((size_t)rounds, sizeof *import);
	struct rig_shot_model model = {0};
	for (int r = 0; r < rounds; r++) {
		double t0 = bench_now_seconds();
		json_decref(json_loads(text, JSON_REJECT_DUPLICATES, NULL));
		double t1 = bench_now_seconds();
		rig_shot_model_release(&model);
		import_into(&model, text, format);
		double t2 = bench_now_seconds();
		parse[r] = t1 - t0;
		import[r] = t2 - t1;
	}
	double p = median(parse, rounds), im = median(import, rounds);
	printf("%-6s import of %zu bytes (%zu layers): %8.2f ms   jansson parse alone %7.2f ms   "
	       "%5.1f x\n",
	       format, strlen(text), model.n_layers, im * 1e3, p * 1e3, im / p);
	for (size_t k = 0; k < rig_interchange_n_formats; k++) {
		const struct rig_interchange_format *e = &rig_interchange_formats[k];
		if (!e->export)
			continue;
		double *ex = bench_xcalloc((size_t)rounds, sizeof *ex);
		size_t len = 0;
		for (int r = 0; r < rounds; r++) {
			double t0 = bench_now_seconds();
			json_decref(json_loads(text, JSON_REJECT_DUPLICATES, NULL));
			double t1 = bench_now_seconds();
			len = export_as(e, &model);
			double t2 = bench_now_seconds();
			parse[r] = t1 - t0;
			ex[r] = t2 - t1;
		}
		double pe = median(parse, rounds), x = median(ex, rounds);
		printf("         export as %-6s (%zu bytes):        %8.2f ms   jansson parse alone "
		       "%7.2f ms   %5.1f x\n",
		       e->name, len, x * 1e3, pe * 1e3, x / pe);
		free(ex);
	}
	rig_shot_model_release(&model);
	free(parse);
	free(import);
	free(text);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 21;
	if (rounds < 1)
		rounds = 1;
	printf("bench_interchange: %d bones, %d meshes of %d vertices, %d keys; medians of %d "
	       "rounds\n",
	       BONES, MESHES, (GRID + 1) * (GRID + 1), KEYS, rounds);
	bench_format("spine", spine_doc(), rounds);
	bench_format("rig2d", rig2d_doc(), rounds);
	return 0;
}
