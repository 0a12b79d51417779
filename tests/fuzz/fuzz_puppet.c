/* libFuzzer target over the puppet binding (issue 24): its stored form and its
 * evaluator. Two inputs, by the first byte's low bit:
 *   0: stored bytes — u16 head length, the head, then the arrays — through the
 *      row's decode; whatever decodes is prepared (a stored definition is
 *      trusted only as far as memory safety: damaged rows must answer errors,
 *      never fault) and, when prepared, evaluated with its notes at frames
 *      from the input;
 *   1: a small definition read field by field (counts, then doubles, indices
 *      and pins), checked by rig_puppet_def_check; an accepted one goes
 *      through encode and decode (which must give it back) and is evaluated.
 * Sizes are kept small (ARAP on a few hundred vertices per run at most) so the
 * fuzzer explores the rules rather than the solver's speed.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/puppet.h"

#define MAX_VERTS 200

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_u8(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

static double take_f64(struct cursor *c)
{
	double v = 0;
	if (c->left >= 8) {
		memcpy(&v, c->p, 8);
		c->p += 8;
		c->left -= 8;
	}
	return v;
}

/* A small-integer double most of the time, so meshes are often valid. */
static double take_coord(struct cursor *c)
{
	uint8_t k = take_u8(c);
	return k < 200 ? (double)(k % 20) * 10 : take_f64(c);
}

static void evaluate_at(const struct rig_binding_type *t, void *eval, struct cursor *c,
			struct rig_errs *errs)
{
	const void *def = t->eval_def(eval);
	size_t nv = t->def_n_verts(def), nt = t->def_n_tris(def);
	double *xy = malloc((2 * nv + 1) * sizeof *xy);
	uint32_t *order = malloc((nt + 1) * sizeof *order);
	for (int i = 0; xy && order && i < 3; i++) {
		struct rig_frame_note note = {.order = order};
		rig_errs_init(errs);
		double frame = (double)(int8_t)take_u8(c) / 4;
		t->evaluate_noted(xy, &note, eval, NULL, frame, errs);
		rig_errs_init(errs);
		t->evaluate(xy, eval, NULL, frame, errs);
	}
	free(order);
	free(xy);
}

static void stored(struct cursor *c, struct rig_errs *errs)
{
	const struct rig_binding_type *t = &rig_binding_puppet;
	size_t n_head = take_u8(c);
	n_head |= (size_t)take_u8(c) << 8;
	if (n_head > c->left)
		n_head = c->left;
	const uint8_t *head = c->p;
	c->p += n_head;
	c->left -= n_head;
	void *def = t->decode(head, n_head, c->p, c->left);
	if (!def)
		return;
	if (t->def_n_verts(def) <= MAX_VERTS) {
		void *eval = t->prepare(def, errs);
		struct cursor frames = {head, n_head};
		if (eval)
			evaluate_at(t, eval, &frames, errs);
		t->free(eval);
	}
	t->def_free(def);
}

static void built(struct cursor *c, struct rig_errs *errs)
{
	const struct rig_binding_type *t = &rig_binding_puppet;
	struct rig_puppet_def d;
	memset(&d, 0, sizeof d);
	d.n_verts = take_u8(c) % 40;
	d.n_tris = take_u8(c) % 40;
	d.n_pins = take_u8(c) % 6;
	uint8_t flags = take_u8(c);
	d.solver = (enum rig_puppet_solver)(flags % 3); /* 2: not a solver, refused */
	d.has_max_rotation = flags & 4;
	d.max_rotation_deg = (double)take_u8(c);
	d.source = calloc(2 * d.n_verts + 1, sizeof *d.source);
	d.triangles = calloc(3 * d.n_tris + 1, sizeof *d.triangles);
	d.pins = calloc(d.n_pins + 1, sizeof *d.pins);
	if (!d.source || !d.triangles || !d.pins)
		goto out;
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		d.source[i] = take_coord(c);
	for (size_t i = 0; i < 3 * d.n_tris; i++)
		d.triangles[i] = take_u8(c) % (d.n_verts + 2);
	for (size_t p = 0; p < d.n_pins; p++) {
		char id[4] = {'p', (char)('a' + take_u8(c) % 4), '\0', '\0'};
		d.pins[p] = rig_puppet_pin_default(id, take_coord(c), take_coord(c));
		struct rig_puppet_pin *pin = &d.pins[p];
		uint8_t what = take_u8(c);
		if (what & 1)
			pin->stiffness = (double)(int8_t)take_u8(c) / 8;
		if (what & 2)
			pin->scale = (double)(int8_t)take_u8(c) / 16;
		if (what & 4)
			pin->rotation_deg = (double)(int8_t)take_u8(c);
		if (what & 8)
			pin->overlap = (double)(int8_t)take_u8(c);
		if (what & 16)
			pin->overlap_extent = (double)take_u8(c) / 32;
		for (int k = 0; k < (what >> 5); k++) {
			struct rig_key key = {(double)(int8_t)take_u8(c),
					      take_coord(c),
					      (enum rig_interp)(take_u8(c) % 3),
					      {0, 0, 1, 1}};
			rig_puppet_pin_key_put(
				pin, (enum rig_pin_channel)(take_u8(c) % RIG_PIN_CH_COUNT), &key);
		}
	}
	if (rig_puppet_def_check(&d, errs) != 0)
		goto out;
	/* What is accepted is stored and read back whole. */
	unsigned char *head = NULL, *arrays = NULL;
	size_t n_head = 0, n_arrays = 0;
	if (t->encode(&d, &head, &n_head, &arrays, &n_arrays) == 0) {
		struct rig_puppet_def *back = t->decode(head, n_head, arrays, n_arrays);
		if (!back || back->n_verts != d.n_verts || back->n_pins != d.n_pins ||
		    memcmp(back->source, d.source, 2 * d.n_verts * sizeof *d.source) != 0)
			abort();
		t->def_free(back);
	}
	free(head);
	free(arrays);
	rig_errs_init(errs);
	struct rig_puppet *eval = rig_puppet_take(&d, errs);
	if (eval)
		evaluate_at(t, eval, c, errs);
	rig_puppet_free(eval);
out:
	rig_puppet_def_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		return 0;
	if (take_u8(&c) & 1)
		built(&c, errs);
	else
		stored(&c, errs);
	rig_errs_free(errs);
	return 0;
}
