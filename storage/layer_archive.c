/* The archive layout of layer_archive.h. */
#include "storage/layer_archive.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"

#define ROW_FIXED_BYTES (8 + 8 + 1 + 4 + 1 + 8 * (RIG_CH_COUNT + 1) + 4)

static unsigned char *put_string(unsigned char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	p[len] = '\0';
	return p + len + 1;
}

int rig_archive_put(struct rig_archive_buf *a, const struct rig_layer_row *row)
{
	size_t id_len = strlen(row->id);
	bool has_row = row->flags & RIG_ARCHIVE_ROW;
	size_t name_len = has_row ? strlen(row->name) : 0;
	size_t parent_len = has_row ? strlen(row->parent_id) : 0;
	size_t keys = has_row && !(row->flags & RIG_ARCHIVE_KEYS_ROWS) ? row->keys_size : 0;
	if (id_len > RIG_ID_MAX || parent_len > RIG_ID_MAX || name_len > UINT32_MAX ||
	    keys > UINT32_MAX)
		return -1;
	size_t need =
		2 + id_len + 1 + (has_row ? ROW_FIXED_BYTES + name_len + parent_len + 2 + keys : 0);
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
		p = rig_bytes_put_u64(p, (uint64_t)row->valid_from);
		p = rig_bytes_put_u64(p, (uint64_t)row->ord);
		*p++ = row->kind == RIG_LAYER_MESH;
		p = rig_bytes_put_u32(p, (uint32_t)name_len);
		p = put_string(p, row->name, name_len);
		*p++ = (unsigned char)parent_len;
		p = put_string(p, row->parent_id, parent_len);
		for (int c = 0; c < RIG_CH_COUNT; c++)
			p = rig_bytes_put_f64(p, row->statics[c]);
		p = rig_bytes_put_f64(p, row->time_offset);
		p = rig_bytes_put_u32(p, (uint32_t)keys);
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
	if ((size_t)(end - q) < 8 + 8 + 1 + 4)
		return -1;
	row->valid_from = (long long)rig_bytes_get_u64(&q);
	row->ord = (long long)rig_bytes_get_u64(&q);
	unsigned kind = *q++;
	row->kind = kind ? RIG_LAYER_MESH : RIG_LAYER_GROUP;
	size_t name_len = rig_bytes_get_u32(&q);
	if (kind > 1 || !(row->name = get_string(&q, end, name_len)) || q == end)
		return -1;
	size_t parent_len = *q++;
	if (parent_len > RIG_ID_MAX || !(row->parent_id = get_string(&q, end, parent_len)) ||
	    (size_t)(end - q) < 8 * (RIG_CH_COUNT + 1) + 4)
		return -1;
	for (int c = 0; c < RIG_CH_COUNT; c++)
		row->statics[c] = rig_bytes_get_f64(&q);
	row->time_offset = rig_bytes_get_f64(&q);
	row->keys_size = rig_bytes_get_u32(&q);
	if ((size_t)(end - q) < row->keys_size ||
	    (row->keys_size && row->flags & RIG_ARCHIVE_KEYS_ROWS))
		return -1;
	row->keys = q;
	*p = q + row->keys_size;
	return 1;
}
