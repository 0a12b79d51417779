/* The archive layout of layer_archive.h. */
#include "storage/layer_archive.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/keys.h"

/* The most bytes an unsigned LEB128 of 64 bits takes. */
#define VARINT_MAX 10

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (unsigned char)(v | 0x80);
	*p++ = (unsigned char)v;
	return p;
}

static bool get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static unsigned char *put_string(unsigned char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	p[len] = '\0';
	return p + len + 1;
}

/* The row's values of the transform's channels and its time offset, in mask
 * order, and their defaults: a value the same bits as its default is left
 * out (a -0.0 is not a 0.0). */
static void values_of(const struct rig_layer_row *row, double out[RIG_CH_COUNT + 1])
{
	memcpy(out, row->statics, sizeof row->statics);
	out[RIG_CH_COUNT] = row->time_offset;
}

static void defaults(double out[RIG_CH_COUNT + 1])
{
	struct rig_transform t = rig_transform_default();
	memcpy(out, t.ch, sizeof t.ch);
	out[RIG_CH_COUNT] = 0;
}

int rig_archive_put(struct rig_archive_buf *a, const struct rig_layer_row *row)
{
	size_t id_len = strlen(row->id);
	bool has_row = row->flags & RIG_ARCHIVE_ROW;
	size_t name_len = has_row ? strlen(row->name) : 0;
	size_t parent_len = has_row ? strlen(row->parent_id) : 0;
	size_t keys = has_row && !(row->flags & RIG_ARCHIVE_KEYS_ROWS) ? row->keys_size : 0;
	if (id_len == 0 || id_len > RIG_ID_MAX || parent_len > RIG_ID_MAX)
		return -1;
	size_t need = 2 + id_len + 1;
	if (has_row)
		need += 4 * VARINT_MAX + 2 + name_len + 1 + 1 + parent_len + 1 +
			8 * (RIG_CH_COUNT + 1) + keys;
	if (a->size + need > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 512;
		while (cap < a->size + need)
			cap *= 2;
		unsigned char *grown = realloc(a->bytes, cap);
		if (!grown)
			return -1;
		a->bytes = grown;
		a->cap = cap;
	}
	unsigned char *p = a->bytes + a->size;
	*p++ = (unsigned char)row->flags;
	*p++ = (unsigned char)id_len;
	p = put_string(p, row->id, id_len);
	if (has_row) {
		p = put_varint(p, (uint64_t)row->valid_from);
		p = put_varint(p, (uint64_t)row->ord);
		*p++ = row->kind == RIG_LAYER_MESH;
		p = put_varint(p, name_len);
		p = put_string(p, row->name, name_len);
		*p++ = (unsigned char)parent_len;
		p = put_string(p, row->parent_id, parent_len);
		double v[RIG_CH_COUNT + 1], d[RIG_CH_COUNT + 1];
		values_of(row, v);
		defaults(d);
		unsigned char *mask = p++;
		*mask = 0;
		for (int c = 0; c <= RIG_CH_COUNT; c++)
			if (memcmp(&v[c], &d[c], sizeof v[c]) != 0) {
				*mask |= (unsigned char)(1u << c);
				p = rig_bytes_put_f64(p, v[c]);
			}
		p = put_varint(p, keys);
		if (keys)
			memcpy(p, row->keys, keys);
		p += keys;
	}
	a->size = (size_t)(p - a->bytes);
	return 0;
}

/* The NUL-terminated string of len bytes at *p, or NULL past end. */
static const char *get_string(const unsigned char **p, const unsigned char *end, size_t len)
{
	const unsigned char *s = *p;
	if ((size_t)(end - s) < len + 1 || s[len] != '\0' || memchr(s, '\0', len))
		return NULL;
	*p = s + len + 1;
	return (const char *)s;
}

int rig_archive_next(const unsigned char **p, const unsigned char *end, struct rig_layer_row *row)
{
	const unsigned char *q = *p;
	if (q == end)
		return 0;
	memset(row, 0, sizeof *row);
	if (end - q < 2)
		return -1;
	row->flags = *q++;
	size_t id_len = *q++;
	if (row->flags &
		    ~(unsigned)(RIG_ARCHIVE_ROW | RIG_ARCHIVE_DELETED | RIG_ARCHIVE_KEYS_ROWS) ||
	    id_len == 0 || id_len > RIG_ID_MAX || !(row->id = get_string(&q, end, id_len)))
		return -1;
	if (!(row->flags & RIG_ARCHIVE_ROW)) {
		*p = q;
		return row->flags ? -1 : 1;
	}
	uint64_t from, ord, name_len, keys;
	if (!get_varint(&q, end, &from) || !get_varint(&q, end, &ord) || from > INT64_MAX ||
	    ord > INT64_MAX || q == end)
		return -1;
	row->valid_from = (long long)from;
	row->ord = (long long)ord;
	unsigned kind = *q++;
	row->kind = kind ? RIG_LAYER_MESH : RIG_LAYER_GROUP;
	if (kind > 1 || !get_varint(&q, end, &name_len) || name_len > (uint64_t)(end - q) ||
	    !(row->name = get_string(&q, end, (size_t)name_len)) || q == end)
		return -1;
	size_t parent_len = *q++;
	if (parent_len > RIG_ID_MAX || !(row->parent_id = get_string(&q, end, parent_len)) ||
	    q == end)
		return -1;
	unsigned mask = *q++;
	double v[RIG_CH_COUNT + 1];
	defaults(v);
	for (int c = 0; c <= RIG_CH_COUNT; c++)
		if (mask >> c & 1u) {
			if (end - q < 8)
				return -1;
			v[c] = rig_bytes_get_f64(&q);
		}
	memcpy(row->statics, v, sizeof row->statics);
	row->time_offset = v[RIG_CH_COUNT];
	if (mask >> (RIG_CH_COUNT + 1) || !get_varint(&q, end, &keys) ||
	    keys > (uint64_t)(end - q) || (keys && row->flags & RIG_ARCHIVE_KEYS_ROWS))
		return -1;
	row->keys = q;
	row->keys_size = (size_t)keys;
	*p = q + keys;
	return 1;
}
