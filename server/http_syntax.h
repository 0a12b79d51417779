/* Request syntax checks and small helpers of the HTTP front (http.c): the
 * header census, NUL bytes in the request line, JSON bodies on writes, client
 * address keys and PEM files. Nothing here keeps state.
 *
 * libmicrohttpd 0.9.75 keeps no raw copy of the header block, so two checks
 * read its in-place parse: the request line is cut into NUL-terminated pieces
 * where its spaces were, and each header value follows its name in the same
 * buffer; 0.9.75 appends an obs-fold line to the previous header's *name* in a
 * new allocation, so a folded header's value no longer follows its name.
 */
#ifndef RIG_HTTP_SYNTAX_H
#define RIG_HTTP_SYNTAX_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define MAX_HEADER_FIELDS 100
#define MAX_HEADER_BYTES 8192

/* What rig_http__census found in a request's header fields. */
struct rig_header_census {
	size_t fields;
	size_t longest;
	int content_lengths;
	int transfer_encodings;
	bool te_chunked; /* the one Transfer-Encoding is exactly "chunked" */
	bool has_host;
	int authorizations;   /* Authorization fields: more than one is refused */
	const char *bad_name; /* a name that is not an RFC 9110 token */
	const char *folded;   /* a name an obs-fold line was folded into */
};

/* Counts and checks conn's header fields into out (zeroed first). The
 * pointers in out are borrowed from conn until its request completes. */
void rig_http__census(struct rig_header_census *out, struct MHD_Connection *conn);

/* Whether a NUL byte was sent inside the method or target of the request
 * line: method and version as libmicrohttpd passed them to the access
 * handler, raw_uri and raw_uri_len the target as its URI log callback saw it
 * (its address, and its length up to the first NUL). */
bool rig_http__request_line_has_nul(const char *method, const char *version, uintptr_t raw_uri,
				    size_t raw_uri_len);

/* Whether conn's request is a write (not GET, HEAD or OPTIONS) carrying a body
 * (a non-zero Content-Length, or a Transfer-Encoding) whose Content-Type is
 * not application/json (parameters allowed, compared case-insensitively). */
bool rig_http__body_not_json(struct MHD_Connection *conn, const char *method);

/* Writes addr as 16 bytes (IPv4 mapped into IPv6) to out; false if addr is
 * NULL or of another family. */
bool rig_http__addr_key(unsigned char out[16], const struct sockaddr *addr);

/* Reads a whole PEM file (at most 1 MiB) into a new NUL-terminated buffer,
 * freed by the caller; NULL with a message naming what and path in err. */
char *rig_http__read_pem(const char *path, const char *what, char *err, size_t err_size);

#endif
