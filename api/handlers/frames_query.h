/* The request of the frame routes, read once (issue 22, item 6): the one-frame
 * and map-points handlers (frames.c), frame ranges (frame_range.c) and the
 * check (check.c) turn their path, query and headers into a struct
 * rig_frames_query at their top and work from it. Also here: the readers of
 * single parameters, which the handlers with a parse of their own call
 * (mesh_data.c, skin.c, shot_diff.c, constraints.c), and the strong ETag of a
 * frame query. Opening the shot, evaluation failures and the memory budget
 * are frames.h's.
 */
#ifndef RIG_FRAMES_QUERY_H
#define RIG_FRAMES_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/eval/frame_encode.h"
#include "api/http/exchange.h"
#include "api/util/sha256.h"
#include "core/frame_range.h"
#include "storage/shot_model.h"

struct rig_app;

enum rig_frame_format { RIG_FRAMES_JSON, RIG_FRAMES_F32, RIG_FRAMES_OBJ };

/* ---- readers of one parameter ---- */

/* A frame number (or step) from a path or query, the one rule for all of
 * them: written as a JSON number (RFC 8259 §6: an optional '-', digits without
 * leading zeros, an optional fraction and exponent; no '+', spaces, hex, inf
 * or nan) whose value is finite. Sets *out; 0, or -1 (*out untouched). */
int rig_frames__parse_frame(double *out, const char *s);

/* ?space=local|shot. 0, or -1 with resp filled (400). */
int rig_frames__space(struct rig_req *req, struct rig_resp *resp, bool *shot_space);

/* ?maxBytes: a positive integer, RIG_DEFAULT_PAGE_BYTES when absent, larger
 * values coerced down to RIG_MAX_PAGE_BYTES. 0, or -1 with resp filled (400). */
int rig_frames__max_bytes(struct rig_req *req, struct rig_resp *resp, size_t *out);

/* The shot version a genuine page token of kind `kind` pins, or -1 (no
 * token, or one the route's own check will refuse). token may be NULL. */
long long rig_frames__token_version(struct rig_app *app, const char *token, const char *kind);

/* rig_frames__token_version of ?pageToken. */
long long rig_frames__pinned_version(struct rig_req *req, const char *kind);

/* Sets the ETag of (shot version, query: the path and every frame
 * parameter); true (and status 304) when If-None-Match matches it. */
bool rig_frames__etag(struct rig_req *req, struct rig_resp *resp, long long version);

/* ---- the typed request ---- */

/* What a route reads besides ?version (which every frame route reads), for
 * rig_frames__query_parse. */
enum rig_frames_reads {
	RIG_FQ_FRAME = 1 << 0,       /* the path's {frame}, params[1] */
	RIG_FQ_LAYER = 1 << 1,       /* the path's {layerId}, params[1] */
	RIG_FQ_PAGE_SIZE = 1 << 2,   /* ?pageSize */
	RIG_FQ_SPACE = 1 << 3,       /* ?space */
	RIG_FQ_FORMAT = 1 << 4,      /* ?format=json|f32 */
	RIG_FQ_FORMAT_OBJ = 1 << 5,  /* ?format=json|f32|obj */
	RIG_FQ_F32_VERSION = 1 << 6, /* ?f32Version, after the format */
	RIG_FQ_LAYERS = 1 << 7,      /* ?layers */
	RIG_FQ_RANGE = 1 << 8,       /* ?from, ?to, ?step */
};

/* A number of the query whose check waits for the shot (?from, ?to, ?step:
 * their defaults are the shot's). */
struct rig_frames_number {
	bool given;  /* in the query */
	bool finite; /* given and a finite number: value holds it */
	double value;
};

/* One id of ?layers: len bytes at ptr (not NUL-terminated), borrowed from
 * the request's query; 1 ≤ len ≤ RIG_ID_MAX. */
struct rig_frames_id {
	const char *ptr;
	size_t len;
};

/* How ?layers ends after its well-formed ids. */
enum rig_frames_list_end {
	RIG_FRAMES_LIST_OK,             /* every element is an id */
	RIG_FRAMES_LIST_MALFORMED,      /* empty, or an empty or overlong element follows */
	RIG_FRAMES_LIST_TRAILING_COMMA, /* a comma ends the list */
};

/* ?layers=a,b. The one-frame handler (frames.c) looks the ids up on the
 * shot in order and reports the list's end after them, as the route always
 * has: a list naming a missing layer before a stray comma is that layer's
 * 404. */
struct rig_frames_layers {
	bool given;                /* absent: every skinned mesh layer */
	struct rig_frames_id *ids; /* n_ids, owned by the query */
	size_t n_ids;
	enum rig_frames_list_end end;
};

/* A frame route's request. The strings are borrowed from the request and
 * live as long as it does. */
struct rig_frames_query {
	const char *shot_id;  /* the path's {shotId} */
	const char *layer_id; /* RIG_FQ_LAYER: the path's {layerId}; else NULL */
	double frame;         /* RIG_FQ_FRAME: the path's {frame} */
	size_t page_size;     /* RIG_FQ_PAGE_SIZE: ?pageSize (paging.h's default, cap) */
	bool shot_space;      /* ?space=shot; default local */
	enum rig_frame_format format;
	uint32_t f32_version; /* RIG_F32_VERSION_PLAIN, or _TAGGED for f32Version=2 */
	struct rig_frames_layers layers;
	struct rig_frames_number from, to, step;

	/* ?version: the version to read, -1 for the head. When it is not a
	 * non-negative integer, version_bad is set and the problem waits for the
	 * shot's opening (rig_frames__query_open), where a page token pinning
	 * its version leaves ?version unread, as it always has. version_text is
	 * ?version as sent (its first 20 bytes; "" when absent), which page
	 * tokens' fingerprints of the query quote. */
	long long version;
	bool version_bad;
	char version_text[21];

	const char *page_token;    /* ?pageToken of a paged route, or NULL */
	long long pinned_version;  /* the version page_token pins, or -1 */
	const char *if_none_match; /* the If-None-Match header, or NULL */
	/* The hash of the path and every frame parameter the ETag is made of. */
	char query_hash[RIG_SHA256_HEX_SIZE];
};

/* Reads req into *out (zeroed first) for a route reading `reads` and, when
 * the route pages (pages: its page tokens' kind, "check"; else NULL),
 * ?pageToken. Parameters are read in this order and the problems that do not
 * need the shot reported in it, as the routes always have: {frame},
 * pageSize, space, format, f32Version (400 INVALID_QUERY naming the
 * parameter). The rest is read here and checked against the shot:
 * ?version by rig_frames__query_open, ?layers by the one-frame handler
 * (frames.c), the range by rig_frames__query_range. Returns 0, or -1 with resp filled;
 * either way release *out with rig_frames__query_release. */
int rig_frames__query_parse(struct rig_frames_query *out, struct rig_req *req,
			    struct rig_resp *resp, unsigned reads, const char *pages);

/* Frees what q owns (its layer ids); q may be zeroed. */
void rig_frames__query_release(struct rig_frames_query *q);

/* q's ?from, ?to, ?step on shot m (defaults: its frameStart and frameEnd,
 * step 1), after the range rules of core/frame_range.h with the limit
 * RIG_MAX_RANGE_FRAMES. Sets *out (and *out_to, may be NULL); 0, or -1 with
 * resp filled: 400 INVALID_QUERY naming the first of from, to, step that is
 * not a finite number, else the rule broken. */
int rig_frames__query_range(const struct rig_frames_query *q, const struct rig_shot_model *m,
			    struct rig_resp *resp, struct rig_frame_range *out, double *out_to);

/* rig_frames__etag for q: sets the ETag of (version, q); true (and status
 * 304) when q's If-None-Match matches it. */
bool rig_frames__query_etag(const struct rig_frames_query *q, struct rig_resp *resp,
			    long long version);

#endif
