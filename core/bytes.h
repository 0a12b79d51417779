/* Little-endian bytes of a binding kind's stored form (core/binding.h's
 * encode/decode): every kind writes its head and mesh with these, so a stored
 * binding reads back the same on every CPU. Writers return the position after
 * what they wrote; readers advance *p. The caller sizes the buffers. Not
 * here: storage's own chunk framing (storage/chunks.h). */
#ifndef RIG_BYTES_H
#define RIG_BYTES_H

#include <stdint.h>
#include <string.h>

/* Written out byte by byte, not as loops: GCC at -O2 merges these into one
 * load or store (a loop it leaves as a loop, byte after byte). */
static inline unsigned char *rig_bytes_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
	return p + 4;
}

static inline unsigned char *rig_bytes_put_u64(unsigned char *p, uint64_t v)
{
	rig_bytes_put_u32(p, (uint32_t)v);
	return rig_bytes_put_u32(p + 4, (uint32_t)(v >> 32));
}

/* The double's IEEE-754 bits, as a u64. */
static inline unsigned char *rig_bytes_put_f64(unsigned char *p, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return rig_bytes_put_u64(p, bits);
}

static inline uint32_t rig_bytes_get_u32(const unsigned char **p)
{
	const unsigned char *q = *p;
	*p += 4;
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static inline uint64_t rig_bytes_get_u64(const unsigned char **p)
{
	uint64_t lo = rig_bytes_get_u32(p);
	return lo | (uint64_t)rig_bytes_get_u32(p) << 32;
}

static inline double rig_bytes_get_f64(const unsigned char **p)
{
	uint64_t bits = rig_bytes_get_u64(p);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

#endif
