/* What every handler uses to read a request and answer it: the handler type,
 * body parsing, storage failures as problems, write transactions with
 * idempotent responses, conditional headers. Public entry points are in
 * exchange.h and api/app.h.
 */
#ifndef RIG_REQUEST_H
#define RIG_REQUEST_H

#include <jansson.h>
#include <stdbool.h>

#include "api/context.h"
#include "api/http/exchange.h"
#include "api/http/problem.h"
#include "api/util/etag.h"
#include "storage/shot_model.h"

/* Parses the request body as one JSON document (UTF-8, no duplicate keys, no
 * trailing data; jansson rejects NaN, Infinity and out-of-range numbers). On
 * failure fills resp with a 400/415 problem and returns NULL. New reference. */
json_t *rig_api__parse_body(struct rig_req *req, struct rig_resp *resp);

/* Bodies at least this long go through the compact array decoder (bulk.h). */
#define RIG_BULK_MIN_BYTES ((size_t)0) /* every body: the path every test exercises */

/* As rig_api__parse_body, first decoding the large skin arrays of a body laid
 * out as mode (enum rig_bulk_mode; -1: none) into req->bulk. Running out of
 * memory (or past the memory budget) while parsing is 503 MEMORY_BUSY. */
json_t *rig_api__parse_body_bulk(struct rig_req *req, struct rig_resp *resp, int mode);

/* Answers a storage failure (negative enum rig_code) as a problem. */
void rig_api__fail(struct rig_resp *resp, int rc, const char *what);

/* Returns a new, empty error list (rig_errs_new); free with rig_errs_free.
 * When out of memory fills resp with 503 MEMORY_BUSY (Retry-After: 1) and
 * returns NULL: running out of memory is the server's condition. */
struct rig_errs *rig_api__errs_new(struct rig_resp *resp);

/* As rig_api__fail for a shot lookup: a missing shot is a 404 naming shotId. */
void rig_api__fail_shot(struct rig_resp *resp, int rc, const char *shot_id);

/* A count (a version, a page size, a byte limit) from a path, query or
 * header, the one rule for all of them: one or more ASCII digits and nothing
 * else (no sign, space or hex; strtoll alone takes " +12"). Sets *out to the
 * value, ULLONG_MAX when it is larger; 0, or -1 (*out untouched). */
int rig_api__parse_count(unsigned long long *out, const char *s);

/* Reads ?version, the shot version a read answers (docs/history.md): sets
 * *out to it, or to -1 when absent. Returns 0, or -1 with resp filled (400
 * INVALID_QUERY for anything but a non-negative integer). */
int rig_api__version(struct rig_req *req, struct rig_resp *resp, long long *out);

/* The two halves of rig_api__version, for a handler that reads ?version at
 * its top and reports it later: parses s (NULL: absent) into *out (-1 when
 * absent); 0, or -1 (*out -1) for anything but a non-negative integer. */
int rig_api__version_parse(const char *s, long long *out);

/* Fills resp with the 400 INVALID_QUERY of a ?version rig_api__version_parse
 * refused. */
void rig_api__version_refuse(struct rig_resp *resp);

/* Reads the boolean query parameter name ("true" or "false"; absent:
 * false) into *out. Returns 0, or -1 with resp filled (400 INVALID_QUERY). */
int rig_api__query_bool(struct rig_req *req, struct rig_resp *resp, const char *name, bool *out);

/* As rig_api__fail_shot for a load of shot_id at version (-1: the head) on
 * tx (still open): 410 VERSION_COMPACTED with the oldest readable version, or
 * 404 for a version above the head. */
void rig_api__fail_shot_at(struct rig_resp *resp, struct rig_tx *tx, int rc, const char *shot_id,
			   long long version);

/* A query parameter, or NULL. */
static inline const char *rig_api__query(struct rig_req *req, const char *name)
{
	return req->query ? req->query(req->ctx, name) : NULL;
}

static inline const char *rig_api__header(struct rig_req *req, const char *name)
{
	return req->header ? req->header(req->ctx, name) : NULL;
}

/* True when If-None-Match names tag (a quoted strong tag such as "\"12\""):
 * "*", or a comma-separated list compared weakly (W/ prefixes ignored), as
 * RFC 9110 §13.1.2 asks. */
bool rig_api__none_match(struct rig_req *req, const char *tag);

/* rig_api__none_match for an If-None-Match value already read (NULL:
 * absent, false). */
bool rig_api__none_match_header(const char *header, const char *tag);

/* Sets ETag: "<version>" on resp. */
void rig_api__etag(struct rig_resp *resp, long long version);

/* Parses If-Match into *out (rig_if_match_parse; zeroed when the header is
 * absent). Returns 0, or -1 with resp filled (400 PRECONDITION_INVALID naming
 * the header) when it is not "*" or a list of entity tags. */
int rig_api__if_match(struct rig_req *req, struct rig_resp *resp, struct rig_if_match *out);

#endif
