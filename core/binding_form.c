/* The shared pieces of a kind's generic stored form (binding_form.h). */
#include "core/binding_form.h"

#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/codes.h"
#include "core/rig_limits.h"

int rig_form_alloc(unsigned char **head, size_t n_head, unsigned char **arrays, size_t n_arrays)
{
	*head = malloc(n_head ? n_head : 1);
	*arrays = malloc(n_arrays ? n_arrays : 1);
	if (*head && *arrays)
		return 0;
	free(*head);
	free(*arrays);
	*head = *arrays = NULL;
	return -RIG_MEMORY_BUSY;
}

unsigned char *rig_form_head_put(unsigned char *p, const char tag[4], size_t n_verts, size_t n_tris,
				 size_t n_keys)
{
	memcpy(p, tag, 4);
	p = rig_bytes_put_u64(p + 4, n_verts);
	p = rig_bytes_put_u64(p, n_tris);
	return rig_bytes_put_u64(p, n_keys);
}

int rig_form_head_get(const unsigned char **p, const unsigned char *head, size_t n_head,
		      const char tag[4], size_t per_key, size_t *n_verts, size_t *n_tris,
		      size_t *n_keys)
{
	if (n_head < RIG_FORM_HEAD_FIXED || memcmp(head, tag, 4) != 0)
		return -1;
	*p = head + 4;
	uint64_t nv = rig_bytes_get_u64(p), nt = rig_bytes_get_u64(p), nk = rig_bytes_get_u64(p);
	if (nv > RIG_MAX_VERTICES || nt > RIG_MAX_TRIANGLES ||
	    nk > (n_head - RIG_FORM_HEAD_FIXED) / per_key ||
	    n_head != RIG_FORM_HEAD_FIXED + nk * per_key)
		return -1;
	*n_verts = (size_t)nv;
	*n_tris = (size_t)nt;
	*n_keys = (size_t)nk;
	return 0;
}

unsigned char *rig_form_key_time_put(unsigned char *p, const struct rig_key *k)
{
	p = rig_bytes_put_f64(p, k->frame);
	p = rig_bytes_put_u32(p, (uint32_t)k->interp);
	for (int e = 0; e < 4; e++)
		p = rig_bytes_put_f64(p, k->ease[e]);
	return p;
}

void rig_form_key_time_get(const unsigned char **p, struct rig_key *k)
{
	k->frame = rig_bytes_get_f64(p);
	k->interp = (enum rig_interp)rig_bytes_get_u32(p);
	for (int e = 0; e < 4; e++)
		k->ease[e] = rig_bytes_get_f64(p);
}

unsigned char *rig_form_rest_put(unsigned char *p, const double *source, size_t n_verts,
				 const uint32_t *triangles, size_t n_tris)
{
	for (size_t i = 0; i < 2 * n_verts; i++)
		p = rig_bytes_put_f64(p, source[i]);
	for (size_t i = 0; i < 3 * n_tris; i++)
		p = rig_bytes_put_u32(p, triangles[i]);
	return p;
}

unsigned char *rig_form_uvs_put(unsigned char *p, const double *uvs, size_t n_verts)
{
	for (size_t i = 0; uvs && i < 2 * n_verts; i++)
		p = rig_bytes_put_f64(p, uvs[i]);
	return p;
}

int rig_form_uvs_get(const unsigned char **p, size_t rest, double **uvs, size_t n_verts)
{
	*uvs = NULL;
	if (rest == 0)
		return 0;
	if (n_verts == 0 || rest != n_verts * 16 || !(*uvs = malloc(rest)))
		return -1;
	for (size_t i = 0; i < 2 * n_verts; i++)
		(*uvs)[i] = rig_bytes_get_f64(p);
	return 0;
}

int rig_form_rest_get(const unsigned char **p, double **source, size_t n_verts,
		      uint32_t **triangles, size_t n_tris)
{
	*source = malloc((n_verts ? 2 * n_verts : 1) * sizeof **source);
	*triangles = malloc((n_tris ? 3 * n_tris : 1) * sizeof **triangles);
	if (!*source || !*triangles)
		return -1;
	for (size_t i = 0; i < 2 * n_verts; i++)
		(*source)[i] = rig_bytes_get_f64(p);
	for (size_t i = 0; i < 3 * n_tris; i++)
		(*triangles)[i] = rig_bytes_get_u32(p);
	return 0;
}
