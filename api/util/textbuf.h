/* A growable byte buffer for encoding responses (JSON, OBJ, binary frames)
 * without building a jansson tree per vertex. Doubles print in the shortest
 * form that reads back to the same bits.
 */
#ifndef RIG_TEXTBUF_H
#define RIG_TEXTBUF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rig_buf {
	char *data;
	size_t len;
	size_t cap;
	bool oom; /* an append failed; the content is incomplete */
};

void rig_buf_init(struct rig_buf *b);
void rig_buf_release(struct rig_buf *b);

/* Empties the buffer, keeping its memory. */
static inline void rig_buf_clear(struct rig_buf *b)
{
	b->len = 0;
}

/* Makes room for n more bytes; returns false (and sets oom) when out of memory. */
bool rig_buf_reserve(struct rig_buf *b, size_t n);

void rig_buf_put(struct rig_buf *b, const void *p, size_t n);
void rig_buf_puts(struct rig_buf *b, const char *s);
void rig_buf_printf(struct rig_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the shortest decimal that round-trips to v (v must be finite). */
void rig_buf_double(struct rig_buf *b, double v);

/* Appends s as a JSON string literal (quotes and escapes). */
void rig_buf_json_string(struct rig_buf *b, const char *s);

/* Little-endian binary appends. */
void rig_buf_u32le(struct rig_buf *b, uint32_t v);
void rig_buf_f32le(struct rig_buf *b, float v);
void rig_buf_f64le(struct rig_buf *b, double v);

/* Writes the shortest decimal that reads back as exactly finite v (of those,
 * the closest to v; Schubfach, api/util/dtoa.c) into out (≥ 32 bytes); returns its
 * length. */
int rig_format_double(char *out, double v);

/* Writes v in decimal into out (≥ 21 bytes); returns its length. */
int rig_format_u64(char *out, uint64_t v);

/* Replaces every byte that is not part of valid UTF-8 (and every control
 * character but tab) with '?', in place, so the text can go into JSON. */
void rig_utf8_scrub(char *s);

/* True when s is valid UTF-8 without control characters. */
bool rig_utf8_is_clean(const char *s);

/* Steps through a list of words separated by spaces (scope lists, a route's
 * query parameters): false at its end, else the next word in *word and *len,
 * and *p moved past it. */
static inline bool rig_words_next(const char **p, const char **word, size_t *len)
{
	while (**p == ' ')
		(*p)++;
	if (!**p)
		return false;
	*word = *p;
	*len = strcspn(*p, " ");
	*p += *len;
	return true;
}

/* A space-separated word list (rig_words_next) as a JSON array of strings
 * (new reference). */
json_t *rig_api__words_json(const char *list);

#endif
