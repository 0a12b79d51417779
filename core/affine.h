/* 2D affine matrices [a, b, c, d, e, f] in SVG/canvas order:
 *   x' = a·x + c·y + e,   y' = b·x + d·y + f.
 * A·B applies B first. Pure functions on values; no allocation.
 *
 * rig_affine_invert() holds the one rule of "safely invertible" (SPEC §1) that
 * binds, layer paths and captured binds all use.
 */
#ifndef RIG_AFFINE_H
#define RIG_AFFINE_H

#include <stdbool.h>

struct rig_affine {
	double m[6];
};

/* The identity [1, 0, 0, 1, 0, 0]. */
struct rig_affine rig_affine_identity(void);

/* Returns l·r (r is applied first). */
struct rig_affine rig_affine_mul(struct rig_affine l, struct rig_affine r);

/* Maps the point (x, y) through m into *out_x, *out_y. */
void rig_affine_apply(double *out_x, double *out_y, const struct rig_affine *m, double x, double y);

/* True when all six entries are finite. */
bool rig_affine_is_finite(const struct rig_affine *m);

/* True when m is safely invertible: six finite entries,
 * |ad − bc| ≥ 1e-12 · max(1, (a² + b² + c² + d²) / 2), and a finite inverse. */
bool rig_affine_is_safely_invertible(const struct rig_affine *m);

/* Writes inverse(m) to *out and returns 0 when m is safely invertible; otherwise
 * returns -1 and leaves *out untouched. */
int rig_affine_invert(struct rig_affine *out, const struct rig_affine *m);

#endif
