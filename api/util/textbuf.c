/* The response buffer of textbuf.h. */
#include "api/util/textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rig_buf_init(struct rig_buf *b)
{
	memset(b, 0, sizeof *b);
}

void rig_buf_release(struct rig_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

bool rig_buf_reserve(struct rig_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	char *grown = realloc(b->data, cap);
	if (!grown) {
		b->oom = true;
		return false;
	}
	b->data = grown;
	b->cap = cap;
	return true;
}

void rig_buf_put(struct rig_buf *b, const void *p, size_t n)
{
	/* nothing to add: an empty buffer has no data to memcpy into (UB even for 0 bytes) */
	if (n == 0 || !rig_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void rig_buf_puts(struct rig_buf *b, const char *s)
{
	rig_buf_put(b, s, strlen(s));
}

void rig_buf_printf(struct rig_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !rig_buf_reserve(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rig_buf_double(struct rig_buf *b, double v)
{
	char tmp[32];
	int n = rig_format_double(tmp, v);
	rig_buf_put(b, tmp, (size_t)n);
}

void rig_buf_json_string(struct rig_buf *b, const char *s)
{
	rig_buf_put(b, "\"", 1);
	for (;;) {
		const char *run = s; /* bytes that go out as they are, copied at once */
		while ((unsigned char)*s >= 0x20 && *s != '"' && *s != '\\')
			s++;
		rig_buf_put(b, run, (size_t)(s - run));
		unsigned char c = (unsigned char)*s;
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			rig_buf_put(b, esc, 2);
		} else {
			rig_buf_printf(b, "\\u%04x", c);
		}
		s++;
	}
	rig_buf_put(b, "\"", 1);
}

void rig_buf_u32le(struct rig_buf *b, uint32_t v)
{
	unsigned char p[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};
	rig_buf_put(b, p, 4);
}

void rig_buf_f32le(struct rig_buf *b, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, 4);
	rig_buf_u32le(b, bits);
}

void rig_buf_f64le(struct rig_buf *b, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	rig_buf_u32le(b, (uint32_t)bits);
	rig_buf_u32le(b, (uint32_t)(bits >> 32));
}

/* Length of the valid UTF-8 sequence at s (1–4), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xc2 && c <= 0xdf   ? 2
		   : c >= 0xe0 && c <= 0xef ? 3
		   : c >= 0xf0 && c <= 0xf4 ? 4
					    : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
		return 0; /* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

void rig_utf8_scrub(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0 || (n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f))) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

bool rig_utf8_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)))
			return false;
		p += n;
	}
	return true;
}

json_t *rig_api__words_json(const char *list)
{
	json_t *a = json_array();
	const char *word;
	size_t len;
	for (const char *p = list ? list : ""; rig_words_next(&p, &word, &len);)
		json_array_append_new(a, json_stringn(word, len));
	return a;
}
