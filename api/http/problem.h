/* RFC 9457 problem+json bodies built from enum rig_code and struct rig_err.
 *
 * A problem names its code, the catalogue type (/v1/errors/<CODE>), the fixed
 * title, a detail, whether a retry can succeed, and — for validation — every
 * violation found, each with its op index, JSON pointer and indices.
 */
#ifndef RIG_PROBLEM_H
#define RIG_PROBLEM_H

#include <jansson.h>
#include <stdbool.h>

#include "api/http/exchange.h"
#include "api/util/textbuf.h"
#include "core/err.h"

/* One violation as a JSON object (new reference). */
json_t *rig_err_to_json(const struct rig_err *e);

/* A problem body for a list of violations (new reference): the first one sets
 * code, detail and status; all kept ones are in "errors", plus "errorCount" when
 * more were found than kept. */
json_t *rig_problem_from_errs(const struct rig_errs *errs);

/* Fills resp with a problem for one code; the detail is printf-formatted. Any
 * extra members (may be NULL, reference stolen) are merged into the body. */
void rig_problem(struct rig_resp *resp, enum rig_code code, json_t *extra, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* As rig_problem, answering with status instead of the code's default (e.g.
 * 412 for a VERSION_CONFLICT found through If-Match). */
void rig_problem_status(struct rig_resp *resp, int status, enum rig_code code, json_t *extra,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A problem body (new reference) for one code at status (0 = the code's);
 * the detail is printf-formatted; extra members (may be NULL, reference
 * stolen) are merged in. */
json_t *rig_problem_json(int status, enum rig_code code, json_t *extra, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The problem body for a list of violations at status (0 = the first code's):
 * rig_problem_from_errs, except that running out of memory answers alone as
 * 503 MEMORY_BUSY. *retry_after tells whether a Retry-After hint goes with it. */
json_t *rig_problem_errs_json(const struct rig_errs *errs, int status, bool *retry_after);

/* The problem body for a storage failure (rc, a negative enum rig_code) while
 * doing what; *retry_after is set for a retryable code other than a full disk. */
json_t *rig_problem_storage_json(int rc, const char *what, bool *retry_after);

/* The problem body for a shot that could not be read: a missing shot is a
 * 404 naming shotId, anything else a storage failure (rig_problem_storage_json). */
json_t *rig_problem_shot_json(int rc, const char *shot_id, bool *retry_after);

/* Answers body (a problem, reference stolen) at its status, as
 * application/problem+json, with Retry-After: 1 when retry_after. */
void rig_resp_problem(struct rig_resp *resp, json_t *body, bool retry_after);

/* Fills resp with rig_problem_errs_json(errs, status). */
void rig_problem_errs(struct rig_resp *resp, const struct rig_errs *errs, int status);

/* Serialises body (reference stolen) into resp as JSON with the given status
 * and content type (NULL = application/json). */
void rig_resp_json(struct rig_resp *resp, int status, json_t *body, const char *content_type);

/* Takes text (malloc'd, NUL-terminated JSON as rig_resp_json writes it; NULL:
 * out of memory, answered 500) as the body with the given status and content
 * type (NULL = application/json). */
void rig_resp_text(struct rig_resp *resp, int status, char *text, const char *content_type);

/* Hands b's bytes to resp as the body with the given status and content type
 * (NULL = application/json), leaving b empty; a buffer that ran out of memory
 * answers 500 INTERNAL instead. */
void rig_resp_buf(struct rig_resp *resp, int status, struct rig_buf *b, const char *content_type);

/* 404 NOT_FOUND for a layer the shot does not have, naming both. */
void rig_problem_no_layer(struct rig_resp *resp, const char *shot_id, const char *layer_id);

#endif
