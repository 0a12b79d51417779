/* Little-endian bytes of a binding kind's stored form (core/binding.h's
 * encode/decode): every kind writes its head and mesh with these, so a stored
 * binding reads back the same on every CPU. Writers return the position after
 * what they wrote; readers advance *p. The caller sizes the buffers. Not
 * here: storage's own chunk framing (storage/chunks.h). */
#ifndef RIG_BYTES_H
#define RIG_BYTES_H

#include <stdint.h>
#include <string.h>

static inline unsigned char *rig_bytes_put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

static inline unsigned char *rig_bytes_put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

/* The double's IEEE-754 bits, as a u64. */
static inline unsigned char *rig_bytes_put_f64(unsigned char *p, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return rig_bytes_put_u64(p, bits);
}

static inline uint64_t rig_bytes_get_u64(const unsigned char **p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)(*p)[i] << (8 * i);
	*p += 8;
	return v;
}

static inline uint32_t rig_bytes_get_u32(const unsigned char **p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)(*p)[i] << (8 * i);
	*p += 4;
	return v;
}

static inline double rig_bytes_get_f64(const unsigned char **p)
{
	uint64_t bits = rig_bytes_get_u64(p);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

#endif
