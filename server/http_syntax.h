/* Request syntax checks and small helpers of the HTTP front (http.c): the
 * header census, the request line's syntax, JSON bodies on writes, client
 * address keys and PEM files. Nothing here keeps state.
 *
 * libmicrohttpd 0.9.75 keeps no raw copy of the header block, so three checks
 * read its in-place parse: the request line is cut into NUL-terminated pieces
 * where its spaces were; each header value follows its name in the same
 * buffer (0.9.75 appends an obs-fold line to the previous header's *name* in a
 * new allocation, so a folded header's value no longer follows its name); and
 * each value's line ends right where the value's strlen does, unless the value
 * held a NUL (0.9.75 reports a value's length as its strlen).
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
	int authorizations;       /* Authorization fields: more than one is refused */
	const char *bad_name;     /* a name that is not an RFC 9110 token */
	const char *folded;       /* a name an obs-fold line was folded into */
	const char *nul_in_value; /* the name of a header whose value holds a NUL */
	/* While counting: the header visited last and where its value ends. */
	const char *value_key;
	const char *value_end;
};

/* Counts and checks conn's header fields into out (zeroed first); method as
 * libmicrohttpd passed it to the access handler (the request line's first
 * byte, where the header block starts). The pointers in out are borrowed from
 * conn until its request completes. */
void rig_http__census(struct rig_header_census *out, struct MHD_Connection *conn,
		      const char *method);

/* Checks the request line against RFC 9112 §3 (method SP request-target SP
 * HTTP-version) as far as its in-place parse shows: no NUL in the method or
 * the target, one space before the target, a method that is a token. method
 * and version as libmicrohttpd passed them to the access handler, raw_uri and
 * raw_uri_len the target as its URI log callback saw it (its address, and its
 * length up to the first NUL). Returns NULL when the line is well formed,
 * else a static sentence saying what is wrong. */
const char *rig_http__request_line_problem(const char *method, const char *version,
					   uintptr_t raw_uri, size_t raw_uri_len);

/* Checks a raw request target (as the URI log callback sees it, before it is
 * decoded in place) for a space, which is a second space before the version,
 * or a control character: NULL when there is none, else a static sentence. */
const char *rig_http__target_problem(const char *uri);

/* Whether conn's request is a write (not GET, HEAD or OPTIONS) carrying a body
 * (a non-zero Content-Length, or a Transfer-Encoding) whose Content-Type is
 * not application/json (compared case-insensitively; parameters allowed, but
 * a charset parameter must name UTF-8, quoted or not, in any case). */
bool rig_http__body_not_json(struct MHD_Connection *conn, const char *method);

/* Writes addr as 16 bytes (IPv4 mapped into IPv6) to out; false if addr is
 * NULL or of another family. */
bool rig_http__addr_key(unsigned char out[16], const struct sockaddr *addr);

/* Reads a whole PEM file (at most 1 MiB) into a new NUL-terminated buffer,
 * freed by the caller; NULL with a message naming what and path in err. */
char *rig_http__read_pem(const char *path, const char *what, char *err, size_t err_size);

#endif
