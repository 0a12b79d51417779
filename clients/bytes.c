/* The growable byte buffer of bytes.h. */
#include "clients/bytes.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rig_bytes_init(struct rig_bytes *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void rig_bytes_release(struct rig_bytes *b)
{
	free(b->data);
	rig_bytes_init(b);
}

/* Makes room for n more bytes plus the terminating NUL. */
static int reserve(struct rig_bytes *b, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len - 1)
		return -1;
	size_t need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	char *grown = realloc(b->data, cap);
	if (!grown)
		return -1;
	b->data = grown;
	b->cap = cap;
	return 0;
}

int rig_bytes_append(struct rig_bytes *b, const void *p, size_t n)
{
	if (reserve(b, n) != 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int rig_bytes_puts(struct rig_bytes *b, const char *s)
{
	return rig_bytes_append(b, s, strlen(s));
}

int rig_bytes_printf(struct rig_bytes *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) != 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void rig_bytes_consume(struct rig_bytes *b, size_t n)
{
	if (n >= b->len) {
		rig_bytes_clear(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void rig_bytes_clear(struct rig_bytes *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *rig_bytes_take(struct rig_bytes *b)
{
	char *out = b->data ? b->data : calloc(1, 1);
	rig_bytes_init(b);
	return out;
}
