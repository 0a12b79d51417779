/* The base64 encoder of base64.h: three bytes to four characters, RFC 4648
 * §4, the last one or two bytes padded with '='. The text is built in a
 * small buffer and appended a chunk at a time.
 */
#include "clients/base64.h"

#include <stdint.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int rig_base64_encode(struct rig_bytes *out, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t before = out->len;
	char chunk[4096]; /* a multiple of 4 */
	size_t used = 0;
	if (n / 3 + 1 > SIZE_MAX / 4)
		return -1;
	for (size_t i = 0; i < n; i += 3) {
		size_t left = n - i;
		uint32_t v = (uint32_t)p[i] << 16;
		if (left > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		chunk[used++] = alphabet[(v >> 18) & 63];
		chunk[used++] = alphabet[(v >> 12) & 63];
		chunk[used++] = left > 1 ? alphabet[(v >> 6) & 63] : '=';
		chunk[used++] = left > 2 ? alphabet[v & 63] : '=';
		if (used == sizeof chunk || i + 3 >= n) {
			if (rig_bytes_append(out, chunk, used) != 0)
				goto out_undo;
			used = 0;
		}
	}
	return 0;
out_undo:
	/* a failed call leaves out as it was */
	out->len = before;
	if (out->data)
		out->data[before] = '\0';
	return -1;
}
