/* Keyset paging of lists (projects, shots, plans, receipts, tokens, audit):
 * pageSize, and signed, opaque page tokens that carry the list's kind, scope
 * and cursor.
 */
#ifndef RIG_PAGING_H
#define RIG_PAGING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/http/exchange.h"

/* Reads pageSize (default RIG_DEFAULT_PAGE_SIZE, larger values coerced to
 * RIG_MAX_PAGE_SIZE, zero/negative/non-integer → 400). Returns 0 or -1 with resp filled. */
int rig_api__page_size(struct rig_req *req, struct rig_resp *resp, size_t *out);

/* A page of a keyset-paged list (projects, shots, plans), oldest first. */
struct rig_page {
	json_t *items;      /* the page's items (new reference until finish) */
	size_t limit;       /* pageSize; storage is asked for limit + 1 rows */
	long long last_seq; /* cursor of the last item added */
	bool more;          /* a row past the page exists: the page gets a token */
};

/* True (and p->more set) when the page is already full. */
static inline bool rig_page_full(struct rig_page *p)
{
	if (json_array_size(p->items) < p->limit)
		return false;
	p->more = true;
	return true;
}

/* For list callbacks: true when the row with cursor seq belongs on the page
 * (its cursor is then the page's last); false when the page is full. */
static inline bool rig_page_take(struct rig_page *p, long long seq)
{
	if (rig_page_full(p))
		return false;
	p->last_seq = seq;
	return true;
}

/* Reads pageSize and pageToken for a list of `kind` scoped to `scope` and sets
 * *after to the cursor to continue after (0 on the first page). Returns 0, or
 * -1 with resp filled (400 PAGE_TOKEN_INVALID for a token of another list). */
int rig_api__page_start(struct rig_req *req, struct rig_resp *resp, const char *kind,
			const char *scope, struct rig_page *p, long long *after);

/* Answers body (reference stolen; NULL = a new object) with items_name: [...]
 * and, when more rows follow, nextPageToken. */
void rig_api__page_finish(struct rig_req *req, struct rig_resp *resp, const char *kind,
			  const char *scope, struct rig_page *p, const char *items_name,
			  json_t *body);

/* A signed, opaque page token for payload (reference borrowed); malloc'd string. */
char *rig_api__token_make(struct rig_app *app, json_t *payload);

/* Opens a token: returns its payload (new reference), or NULL when it was not
 * issued by a server on this database (forged, truncated, tampered). */
json_t *rig_api__token_open(struct rig_app *app, const char *token);

/* A listing read at one shot version and paged by offset (mesh-data, check,
 * constraints). Its tokens carry the listing's kind, its scope (the shot and
 * what is listed), a fingerprint of every query parameter that shapes the
 * pages, the version the first page read (rig_frames__pinned_version reads
 * it back) and the offset of the next item. */
struct rig_pinned_page {
	const char *kind;
	const char *scope;
	const char *query;
	const char
		*query_names; /* the parameters, for the refusal: "from, to, step and pageSize" */
	long long version;    /* the version this page reads */
};

/* Reads ?pageToken: *offset = where the page starts (0 without one), at most
 * end. Checks, in order: the signature and kind, then scope and query (400
 * PAGE_TOKEN_INVALID), then the version (410 PAGE_TOKEN_STALE), then the
 * offset. Returns 0, or -1 with resp filled. */
int rig_api__pinned_page_open(struct rig_req *req, struct rig_resp *resp,
			      const struct rig_pinned_page *pp, size_t end, size_t *offset);

/* rig_api__pinned_page_open for a ?pageToken already read (NULL: absent). */
int rig_api__pinned_page_open_token(struct rig_app *app, struct rig_resp *resp,
				    const struct rig_pinned_page *pp, const char *token, size_t end,
				    size_t *offset);

/* The token of pp's page starting at offset: malloc'd, NULL when out of memory. */
char *rig_api__pinned_page_token(struct rig_app *app, const struct rig_pinned_page *pp,
				 size_t offset);

/* Answers body (taken) as pp's page with 200; when more, with the
 * "nextPageToken" of the page starting at next. Out of memory (body NULL, or
 * no token: a page without it would read as the end of the listing) is 503
 * MEMORY_BUSY. */
void rig_api__pinned_page_answer(struct rig_req *req, struct rig_resp *resp,
				 const struct rig_pinned_page *pp, bool more, size_t next,
				 json_t *body);

#endif
