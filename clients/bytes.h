/* A growable byte buffer for the clients: response bodies, partial lines of a
 * streamed body, formatted cells. Always NUL-terminated past len so a text
 * body can be read as a C string. Nothing here knows about HTTP or JSON.
 */
#ifndef RIG_BYTES_H
#define RIG_BYTES_H

#include <stdbool.h>
#include <stddef.h>

struct rig_bytes {
	char *data; /* owned; NULL until the first append; data[len] == '\0' */
	size_t len;
	size_t cap;
};

/* Makes b empty without allocating. */
void rig_bytes_init(struct rig_bytes *b);

/* Frees b's memory and leaves it empty; safe on an initialised empty buffer. */
void rig_bytes_release(struct rig_bytes *b);

/* Appends n bytes of p. Returns 0, or -1 when memory runs out (b unchanged). */
int rig_bytes_append(struct rig_bytes *b, const void *p, size_t n);

/* Appends a C string. Returns 0 or -1 as rig_bytes_append. */
int rig_bytes_puts(struct rig_bytes *b, const char *s);

/* Appends printf-formatted text. Returns 0 or -1 (b unchanged on failure). */
int rig_bytes_printf(struct rig_bytes *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Drops the first n bytes (n <= len), keeping the rest and the allocation. */
void rig_bytes_consume(struct rig_bytes *b, size_t n);

/* Sets len to 0, keeping the allocation. */
void rig_bytes_clear(struct rig_bytes *b);

/* Hands the data over: returns it (an empty string when nothing was appended,
 * NULL only when that allocation fails) and leaves b empty. The caller frees
 * the result with free(). */
char *rig_bytes_take(struct rig_bytes *b);

#endif
