/* Standard base64 (RFC 4648 §4: the alphabet A-Z a-z 0-9 + /, '=' padding,
 * no line breaks), for the binary files the clients send inside JSON (a PNG
 * in a TessellateRequest's `image`). Encoding only: nothing the clients read
 * is base64.
 */
#ifndef RIG_BASE64_H
#define RIG_BASE64_H

#include <stddef.h>

#include "clients/bytes.h"

/* Appends the base64 text of the n bytes at data (4 characters for every 3
 * bytes, the last group padded with '=') to out. Returns 0, or -1 when
 * memory runs out or the text's size would overflow (out then unchanged). */
int rig_base64_encode(struct rig_bytes *out, const void *data, size_t n);

#endif
