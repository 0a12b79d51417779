/* core/puppet.c and core/puppet_binding.c: the definition's checks (every
 * error path, every limit at and past its edge), anchoring, pin and key
 * edits, the stored form and the binding row. The math is test_puppet_solve.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/binding.h"
#include "core/puppet.h"
#include "core/rig_limits.h"
#include "tests/unit/core/puppet_support.h"

/* A 5 × 5 grid (spacing 10) with pins "a" at (0, 0) and "b" at (40, 40). */
static struct rig_puppet_def two_pins(void)
{
	struct rig_puppet_def d = puppet_grid(5, 5, 10);
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 40, 40);
	return d;
}

/* Checks d and expects exactly one error, of code at pointer. */
static void expect_one(const struct rig_puppet_def *d, enum rig_code code, const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_puppet_def_check(d, errs), -1);
	cr_assert_eq(errs->total, 1, "%zu errors, first %s %s", errs->total,
		     rig_code_name(errs->items[0].code), errs->items[0].detail);
	cr_expect_eq(errs->items[0].code, code, "%s", rig_code_name(errs->items[0].code));
	cr_expect_str_eq(errs->items[0].pointer, pointer);
	rig_errs_free(errs);
}

static void expect_valid(const struct rig_puppet_def *d)
{
	struct rig_errs *errs = rig_errs_new();
	cr_expect_eq(rig_puppet_def_check(d, errs), 0, "%s",
		     errs->count ? errs->items[0].detail : "");
	rig_errs_free(errs);
}

Test(puppet_check, accepts_a_grid_with_two_pins)
{
	struct rig_puppet_def d = two_pins();
	expect_valid(&d);
	rig_puppet_def_release(&d);
}

Test(puppet_check, accepts_no_pins)
{
	struct rig_puppet_def d = puppet_grid(3, 3, 1);
	expect_valid(&d);
	rig_puppet_def_release(&d);
}

Test(puppet_check, rejects_a_zeroed_definition)
{
	struct rig_puppet_def d;
	memset(&d, 0, sizeof d);
	struct rig_errs *errs = rig_errs_new();
	cr_expect_eq(rig_puppet_def_check(&d, errs), -1);
	cr_expect_not_null(puppet_find_err(errs, RIG_MESH_GEOMETRY));
	rig_errs_free(errs);
}

Test(puppet_check, uses_the_mesh_rules_for_the_source)
{
	struct rig_puppet_def d = two_pins();
	d.triangles[0] = 99;
	expect_one(&d, RIG_MESH_TOPOLOGY, "/triangles/0");
	d.triangles[0] = 0;
	d.source[3] = NAN; /* vertex 1's y: the mesh's error; anchoring is skipped */
	expect_one(&d, RIG_MESH_GEOMETRY, "/source/1");
	rig_puppet_def_release(&d);
}

Test(puppet_check, rejects_a_repeated_pin_id)
{
	struct rig_puppet_def d = two_pins();
	strcpy(d.pins[1].id, "a");
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/id");
	rig_puppet_def_release(&d);
}

Test(puppet_check, rejects_an_invalid_pin_id)
{
	struct rig_puppet_def d = two_pins();
	strcpy(d.pins[1].id, "..");
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/id");
	d.pins[1].id[0] = '\0';
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/id");
	rig_puppet_def_release(&d);
}

Test(puppet_check, rejects_non_finite_statics)
{
	struct rig_puppet_def d = two_pins();
	d.pins[0].x = INFINITY;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/x");
	d.pins[0].x = 0;
	d.pins[0].y = NAN;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/y");
	d.pins[0].y = 0;
	d.pins[0].rotation_deg = NAN;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/rotation");
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_stiffness_at_zero)
{
	struct rig_puppet_def d = two_pins();
	d.pins[0].stiffness = 0;
	expect_valid(&d);
	d.pins[0].stiffness = -1e-300;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/stiffness");
	d.pins[0].stiffness = INFINITY;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/stiffness");
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_scale_above_zero)
{
	struct rig_puppet_def d = two_pins();
	d.pins[1].scale = 1e-300;
	expect_valid(&d);
	d.pins[1].scale = 0;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/scale");
	d.pins[1].scale = -2;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/scale");
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_overlap_to_plus_minus_100)
{
	struct rig_puppet_def d = two_pins();
	d.pins[0].overlap = 100;
	d.pins[1].overlap = -100;
	expect_valid(&d);
	d.pins[0].overlap = nextafter(100, 200);
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/overlap");
	d.pins[0].overlap = 0;
	d.pins[1].overlap = nextafter(-100, -200);
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/overlap");
	d.pins[1].overlap = NAN;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/1/overlap");
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_overlap_extent_above_zero)
{
	struct rig_puppet_def d = two_pins();
	d.pins[0].overlap_extent = 1e-300;
	expect_valid(&d);
	d.pins[0].overlap_extent = 0;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/overlapExtent");
	d.pins[0].overlap_extent = INFINITY;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/overlapExtent");
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_the_pin_count_at_its_limit)
{
	/* 17 × 17 = 289 vertices: room for 257 pins on distinct vertices */
	struct rig_puppet_def d = puppet_grid(17, 17, 1);
	for (int i = 0; i < RIG_MAX_PUPPET_PINS; i++) {
		char id[16];
		snprintf(id, sizeof id, "p%d", i);
		puppet_add_pin(&d, id, i % 17, i / 17);
	}
	expect_valid(&d);
	puppet_add_pin(&d, "one-more", 16, 16);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_puppet_def_check(&d, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_PUPPET_PINS);
	cr_expect_str_eq(errs->items[0].pointer, "/pins");
	rig_errs_free(errs);
	rig_puppet_def_release(&d);
}

Test(puppet_check, bounds_max_rotation)
{
	struct rig_puppet_def d = two_pins();
	d.has_max_rotation = true;
	d.max_rotation_deg = 0;
	expect_valid(&d);
	d.max_rotation_deg = -1e-300;
	expect_one(&d, RIG_OP_INVALID, "/maxRotationDeg");
	d.max_rotation_deg = NAN;
	expect_one(&d, RIG_OP_INVALID, "/maxRotationDeg");
	d.has_max_rotation = false; /* "none": the value is not read */
	expect_valid(&d);
	d.solver = (enum rig_puppet_solver)7;
	expect_one(&d, RIG_OP_INVALID, "/solver");
	rig_puppet_def_release(&d);
}

Test(puppet_check, checks_key_values_by_channel)
{
	struct rig_puppet_def d = two_pins();
	puppet_key(&d.pins[0], RIG_PIN_CH_STIFFNESS, 0, 0);
	puppet_key(&d.pins[0], RIG_PIN_CH_SCALE, 0, 0.5);
	puppet_key(&d.pins[0], RIG_PIN_CH_OVERLAP, 0, -100);
	puppet_key(&d.pins[0], RIG_PIN_CH_ROTATION, 0, -720);
	expect_valid(&d);
	d.pins[0].keys[RIG_PIN_CH_STIFFNESS].items[0].value = -0.5;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/keys/stiffness/0/value");
	d.pins[0].keys[RIG_PIN_CH_STIFFNESS].items[0].value = 0;
	d.pins[0].keys[RIG_PIN_CH_SCALE].items[0].value = 0;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/keys/scale/0/value");
	d.pins[0].keys[RIG_PIN_CH_SCALE].items[0].value = 1;
	d.pins[0].keys[RIG_PIN_CH_OVERLAP].items[0].value = 101;
	expect_one(&d, RIG_PUPPET_PINS, "/pins/0/keys/overlap/0/value");
	rig_puppet_def_release(&d);
}

Test(puppet_check, checks_keys_with_the_key_rules)
{
	struct rig_puppet_def d = two_pins();
	puppet_key(&d.pins[1], RIG_PIN_CH_POSITION_X, 0, 40);
	puppet_key(&d.pins[1], RIG_PIN_CH_POSITION_X, 10, 50);
	expect_valid(&d);
	struct rig_key *k = d.pins[1].keys[RIG_PIN_CH_POSITION_X].items;
	k[1].frame = 0; /* not after the key before */
	expect_one(&d, RIG_OP_INVALID, "/pins/1/keys/position.x/1/frame");
	k[1].frame = 10;
	k[0].value = NAN;
	expect_one(&d, RIG_OP_INVALID, "/pins/1/keys/position.x/0/value");
	k[0].value = 40;
	k[0].interp = RIG_INTERP_BEZIER;
	k[0].ease[0] = 2; /* x1 outside [0, 1] */
	expect_one(&d, RIG_OP_INVALID, "/pins/1/keys/position.x/0/ease/0");
	rig_puppet_def_release(&d);
}

Test(puppet_check, names_both_pins_on_one_vertex)
{
	struct rig_puppet_def d = two_pins();
	puppet_add_pin(&d, "c", 1, 1); /* nearest vertex 0, "a"'s */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_puppet_def_check(&d, errs), -1);
	cr_assert_eq(errs->total, 1);
	const struct rig_err *e = &errs->items[0];
	cr_expect_eq(e->code, RIG_PUPPET_PIN_VERTEX);
	cr_expect_str_eq(e->pointer, "/pins/2");
	cr_expect_eq(e->vertex_index, 0);
	cr_expect(strstr(e->detail, "'a'") && strstr(e->detail, "'c'"), "%s", e->detail);
	cr_expect_str_eq(e->extra[0].name, "pinId");
	cr_expect_str_eq(e->extra[0].value, "c");
	cr_expect_str_eq(e->extra[1].name, "otherPinId");
	cr_expect_str_eq(e->extra[1].value, "a");
	rig_errs_free(errs);
	rig_puppet_def_release(&d);
}

Test(puppet_check, reports_every_violation)
{
	struct rig_puppet_def d = two_pins();
	d.pins[0].stiffness = -1;
	d.pins[0].scale = 0;
	d.pins[1].overlap_extent = -1;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_puppet_def_check(&d, errs), -1);
	cr_expect_eq(errs->total, 3);
	rig_errs_free(errs);
	rig_puppet_def_release(&d);
}

/* ---- anchoring ---- */

Test(puppet_anchor, takes_the_nearest_vertex_and_the_lowest_on_a_tie)
{
	struct rig_puppet_def d = puppet_grid(3, 3, 10);
	cr_expect_eq(rig_puppet_nearest_vertex(d.source, d.n_verts, 4, 1), 0);
	cr_expect_eq(rig_puppet_nearest_vertex(d.source, d.n_verts, 6, 1), 1);
	cr_expect_eq(rig_puppet_nearest_vertex(d.source, d.n_verts, 5, 0), 0);   /* 0 and 1 tie */
	cr_expect_eq(rig_puppet_nearest_vertex(d.source, d.n_verts, 15, 15), 4); /* 4, 5, 7, 8 */
	rig_puppet_def_release(&d);
}

Test(puppet_anchor, evaluator_anchors_every_pin)
{
	struct rig_puppet_def d = two_pins();
	puppet_add_pin(&d, "mid", 25, 25); /* ties 12, 13, 17, 18: 12 */
	struct rig_puppet *pup = puppet_build(&d);
	cr_expect_eq(rig_puppet_pin_vertex(pup, 0), 0);
	cr_expect_eq(rig_puppet_pin_vertex(pup, 1), 24);
	cr_expect_eq(rig_puppet_pin_vertex(pup, 2), 12);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* ---- names and edits ---- */

Test(puppet_names, channels_round_trip)
{
	const char *want[] = {"position.x", "position.y", "rotation",
			      "stiffness",  "scale",      "overlap"};
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		enum rig_pin_channel ch;
		cr_expect_str_eq(rig_pin_channel_name((enum rig_pin_channel)c), want[c]);
		cr_expect_eq(rig_pin_channel_parse(&ch, want[c]), 0);
		cr_expect_eq((int)ch, c);
	}
	enum rig_pin_channel ch;
	cr_expect_eq(rig_pin_channel_parse(&ch, "scale.x"), -1);
	cr_expect_null(rig_pin_channel_name(RIG_PIN_CH_COUNT));
	enum rig_puppet_solver s;
	cr_expect_eq(rig_puppet_solver_parse(&s, "lbs"), 0);
	cr_expect_eq(s, RIG_PUPPET_SOLVER_LBS);
	cr_expect_str_eq(rig_puppet_solver_name(RIG_PUPPET_SOLVER_ARAP), "arap");
	cr_expect_str_eq(rig_puppet_ran_name(RIG_PUPPET_RAN_LBS_FALLBACK), "lbs-fallback");
}

Test(puppet_edit, puts_replaces_and_deletes_pins_and_keys)
{
	struct rig_puppet_def d = two_pins();
	struct rig_puppet_pin a = rig_puppet_pin_default("a", 10, 0);
	cr_expect_eq(rig_puppet_def_pin_put(&d, &a), 0);
	cr_expect_eq(d.n_pins, 2);
	cr_expect_eq(d.pins[0].x, 10);
	puppet_key(&d.pins[0], RIG_PIN_CH_SCALE, 5, 2);
	puppet_key(&d.pins[0], RIG_PIN_CH_SCALE, 1, 3);
	puppet_key(&d.pins[0], RIG_PIN_CH_SCALE, 5, 4);
	const struct rig_keys *k = &d.pins[0].keys[RIG_PIN_CH_SCALE];
	cr_assert_eq(k->count, 2);
	cr_expect_eq(k->items[0].frame, 1);
	cr_expect_eq(k->items[1].value, 4);
	cr_expect_eq(rig_puppet_pin_value(&d.pins[0], RIG_PIN_CH_SCALE, 100), 4);
	cr_expect_eq(rig_puppet_pin_value(&d.pins[0], RIG_PIN_CH_ROTATION, 100), 0);
	cr_expect(rig_puppet_pin_is_oriented(&d.pins[0]));
	cr_expect_not(rig_puppet_pin_is_oriented(&d.pins[1]));
	cr_expect(rig_puppet_pin_key_delete(&d.pins[0], RIG_PIN_CH_SCALE, 1));
	cr_expect_not(rig_puppet_pin_key_delete(&d.pins[0], RIG_PIN_CH_SCALE, 1));
	cr_expect(rig_puppet_def_pin_delete(&d, "a"));
	cr_expect_not(rig_puppet_def_pin_delete(&d, "a"));
	cr_expect_eq(d.n_pins, 1);
	cr_expect_str_eq(d.pins[0].id, "b");
	rig_puppet_def_release(&d);
}

/* ---- the stored form and the row ---- */

static void expect_same_def(const struct rig_puppet_def *a, const struct rig_puppet_def *b,
			    bool arrays)
{
	cr_assert_eq(a->n_verts, b->n_verts);
	cr_assert_eq(a->n_tris, b->n_tris);
	cr_assert_eq(a->n_pins, b->n_pins);
	cr_expect_eq(a->solver, b->solver);
	cr_expect_eq(a->has_max_rotation, b->has_max_rotation);
	cr_expect_eq(a->max_rotation_deg, b->max_rotation_deg);
	if (arrays) {
		cr_expect_arr_eq(a->source, b->source, 2 * a->n_verts * sizeof *a->source);
		cr_expect_arr_eq(a->triangles, b->triangles, 3 * a->n_tris * sizeof *a->triangles);
	}
	for (size_t p = 0; p < a->n_pins; p++) {
		const struct rig_puppet_pin *x = &a->pins[p], *y = &b->pins[p];
		cr_expect_str_eq(x->id, y->id);
		cr_expect_eq(x->overlap_extent, y->overlap_extent);
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			cr_expect_eq(rig_puppet_pin_static(x, (enum rig_pin_channel)c),
				     rig_puppet_pin_static(y, (enum rig_pin_channel)c));
			cr_assert_eq(x->keys[c].count, y->keys[c].count);
			for (size_t k = 0; k < x->keys[c].count; k++) {
				const struct rig_key *kx = &x->keys[c].items[k],
						     *ky = &y->keys[c].items[k];
				cr_expect_eq(kx->frame, ky->frame);
				cr_expect_eq(kx->value, ky->value);
				cr_expect_eq(kx->interp, ky->interp);
				cr_expect_arr_eq(kx->ease, ky->ease, sizeof kx->ease);
			}
		}
	}
}

static struct rig_puppet_def rich_def(void)
{
	struct rig_puppet_def d = two_pins();
	d.solver = RIG_PUPPET_SOLVER_LBS;
	d.has_max_rotation = true;
	d.max_rotation_deg = 33.5;
	d.pins[0].stiffness = 0.25;
	d.pins[0].overlap = -12;
	d.pins[0].overlap_extent = 3;
	d.pins[1].scale = 1.5;
	puppet_key(&d.pins[1], RIG_PIN_CH_ROTATION, 0, 0);
	puppet_key(&d.pins[1], RIG_PIN_CH_ROTATION, 24, 45);
	d.pins[1].keys[RIG_PIN_CH_ROTATION].items[0].interp = RIG_INTERP_BEZIER;
	d.pins[1].keys[RIG_PIN_CH_ROTATION].items[0].ease[0] = 0.42;
	d.pins[1].keys[RIG_PIN_CH_ROTATION].items[0].ease[2] = 0.58;
	d.pins[1].keys[RIG_PIN_CH_ROTATION].items[0].ease[3] = 1;
	puppet_key(&d.pins[0], RIG_PIN_CH_OVERLAP, 3, 50);
	return d;
}

Test(puppet_form, encode_decode_round_trips)
{
	struct rig_puppet_def d = rich_def();
	const struct rig_binding_type *t = &rig_binding_puppet;
	unsigned char *head, *arrays;
	size_t n_head, n_arrays;
	cr_assert_eq(t->encode(&d, &head, &n_head, &arrays, &n_arrays), 0);
	struct rig_puppet_def *back = t->decode(head, n_head, arrays, n_arrays);
	cr_assert_not_null(back);
	expect_same_def(&d, back, true);
	t->def_free(back);
	back = t->decode(head, n_head, NULL, 0); /* the head only: pins, no rest mesh */
	cr_assert_not_null(back);
	expect_same_def(&d, back, false);
	cr_expect_null(back->source);
	t->def_free(back);
	free(head);
	free(arrays);
	rig_puppet_def_release(&d);
}

Test(puppet_form, decode_refuses_damaged_bytes)
{
	struct rig_puppet_def d = rich_def();
	const struct rig_binding_type *t = &rig_binding_puppet;
	unsigned char *head, *arrays;
	size_t n_head, n_arrays;
	cr_assert_eq(t->encode(&d, &head, &n_head, &arrays, &n_arrays), 0);
	for (size_t cut = 0; cut < n_head; cut++)
		cr_expect_null(t->decode(head, cut, arrays, n_arrays), "head cut at %zu", cut);
	cr_expect_null(t->decode(head, n_head, arrays, n_arrays - 1));
	unsigned char *longer = malloc(n_head + 1);
	memcpy(longer, head, n_head);
	longer[n_head] = 0;
	cr_expect_null(t->decode(longer, n_head + 1, arrays, n_arrays));
	head[0] = 'X';
	cr_expect_null(t->decode(head, n_head, arrays, n_arrays));
	free(longer);
	free(head);
	free(arrays);
	rig_puppet_def_release(&d);
}

Test(puppet_row, validates_prepares_and_evaluates)
{
	const struct rig_binding_type *t = &rig_binding_puppet;
	cr_expect_str_eq(t->name, "puppet");
	struct rig_puppet_def d = two_pins();
	puppet_move(&d.pins[1], 3, -2);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(t->validate(&d, errs), 0);
	struct rig_puppet_def *copy = t->def_copy(&d);
	cr_assert_not_null(copy);
	cr_expect_eq(t->def_n_verts(copy), 25);
	cr_expect_eq(t->def_n_tris(copy), 32);
	cr_expect_eq(t->def_n_joints(copy), 0);
	cr_expect_gt(t->def_bytes(copy), sizeof *copy);
	void *ev = t->prepare(copy, errs);
	cr_assert_not_null(ev);
	cr_expect_null(copy->source); /* taken */
	cr_expect_eq(((const struct rig_puppet_def *)t->eval_def(ev))->n_pins, 2);
	double out[50];
	cr_assert_eq(t->evaluate(out, ev, NULL, 0, errs), 0);
	cr_expect_eq(out[48], 43); /* b's vertex: rest + displacement */
	cr_expect_eq(out[49], 38);
	cr_expect_gt(t->bytes(ev), 25 * 16);
	t->free(ev);
	t->def_free(copy);
	t->def_release_arrays(&d);
	cr_expect_null(d.source);
	cr_expect_eq(d.n_pins, 2);
	rig_errs_free(errs);
	rig_puppet_def_release(&d);
}

Test(puppet_row, evaluate_runs_the_per_frame_checks)
{
	struct rig_puppet_def d = puppet_grid(11, 3, 10);
	d.solver = RIG_PUPPET_SOLVER_LBS;
	puppet_add_pin(&d, "l", 0, 10)->rotation_deg = 90;
	puppet_add_pin(&d, "r", 100, 10)->rotation_deg = -90;
	struct rig_puppet *pup = puppet_build(&d);
	struct rig_errs *errs = rig_errs_new();
	double out[66];
	enum rig_puppet_ran ran;
	cr_expect_eq(rig_puppet_evaluate(out, &ran, pup, 0, errs), -1);
	cr_expect_eq(ran, RIG_PUPPET_RAN_LBS);
	cr_expect(puppet_find_err(errs, RIG_MESH_COLLAPSED) ||
		  puppet_find_err(errs, RIG_MESH_WINDING));
	rig_errs_free(errs);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_row, prepare_refuses_damaged_definitions)
{
	struct rig_puppet_def d = two_pins();
	d.triangles[5] = 1000;
	struct rig_errs *errs = rig_errs_new();
	cr_expect_null(rig_puppet_take(&d, errs));
	cr_expect_eq(errs->items[0].code, RIG_INTERNAL);
	cr_expect_not_null(d.source); /* unchanged */
	d.triangles[5] = 1;
	d.pins[1].x = 0; /* both on vertex 0 */
	d.pins[1].y = 0;
	cr_expect_null(rig_puppet_take(&d, errs));
	cr_expect_not_null(d.pins);
	rig_errs_free(errs);
	rig_puppet_def_release(&d);
}

static size_t find_id(const struct rig_id_list *l, const char *id)
{
	for (size_t i = 0; i < l->count; i++)
		if (!strcmp(l->items[i], id))
			return 1;
	return 0;
}

Test(puppet_row, diff_finds_pins_added_removed_and_changed)
{
	const struct rig_binding_type *t = &rig_binding_puppet;
	struct rig_puppet_def a = two_pins(), b = two_pins();
	puppet_key(&b.pins[0], RIG_PIN_CH_OVERLAP, 0, 5);
	cr_assert(rig_puppet_def_pin_delete(&b, "b"));
	puppet_add_pin(&b, "new", 20, 20);
	b.solver = RIG_PUPPET_SOLVER_LBS;
	cr_assert_eq(t->n_parts, 5); /* source, triangles, uvs, pins, settings */
	struct rig_part_diff pins = {0}, settings = {0}, source = {0};
	cr_assert_eq(t->parts[3].compare(&pins, t, &a, &b), 0);
	cr_assert_eq(t->parts[4].compare(&settings, t, &a, &b), 0);
	cr_assert_eq(t->parts[0].compare(&source, t, &a, &b), 0);
	cr_expect_str_eq(t->parts[2].name, "uvs");
	cr_expect_str_eq(t->parts[3].name, "pins");
	cr_expect(find_id(&pins.ids.changed, "a"));
	cr_expect(find_id(&pins.ids.removed, "b"));
	cr_expect(find_id(&pins.ids.added, "new"));
	cr_expect(find_id(&settings.ids.changed, "solver"));
	cr_expect_not(rig_part_diff_any(&source));
	cr_expect_gt(t->diff_bytes(&a, 25, 32), 25 * 100);
	rig_part_diff_release(&pins);
	rig_part_diff_release(&settings);
	rig_part_diff_release(&source);
	rig_puppet_def_release(&a);
	rig_puppet_def_release(&b);
}
