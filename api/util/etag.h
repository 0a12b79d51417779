/* If-Match (RFC 9110 §13.1.1) read into the resource versions it names, and
 * what a failed one tells the client. rigd's entity tags are strong and hold a
 * version ("12"); If-Match compares strongly (§8.8.3.2), so a weak tag
 * (W/"12") or a tag that is no version never matches. Pure: no allocation,
 * nothing kept. The header's own problems (400) are answered by
 * api/http/request.c.
 */
#ifndef RIG_ETAG_H
#define RIG_ETAG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Most distinct versions one If-Match may name. */
#define RIG_IF_MATCH_MAX_VERSIONS 16

/* A parsed If-Match. Zeroed: no header, no condition. */
struct rig_if_match {
	bool present; /* the header was sent */
	bool any;     /* "*": any current representation, that is, the resource exists */
	size_t n_versions;
	long long versions[RIG_IF_MATCH_MAX_VERSIONS]; /* of its strong tags "<decimal>" */
};

/* Parses an If-Match field value into out: "*", or a comma-separated list of
 * entity tags ("x" or W/"x", x of etagc characters; empty list elements and
 * whitespace around commas allowed). A strong tag written as a canonical
 * decimal version ("0", "12"; not "012") names that version; other tags are
 * valid but can never match. Returns 0, or -1 (out zeroed but present) when
 * the value is not that syntax, lists no tag, or names more than
 * RIG_IF_MATCH_MAX_VERSIONS distinct versions. */
int rig_if_match_parse(struct rig_if_match *out, const char *value);

/* Whether m constrains the write at all: sent and not "*". */
bool rig_if_match_constrains(const struct rig_if_match *m);

/* Whether m holds for a resource (that exists) at version: always when it
 * does not constrain, else when it names version. */
bool rig_if_match_holds(const struct rig_if_match *m, long long version);

/* Sets what a failed m expected on a problem's members obj: `one` (an
 * integer) when it names exactly one version, else `many` (an array, maybe
 * empty: weak tags and tags that are no version name none). */
void rig_if_match_expected_json(json_t *obj, const struct rig_if_match *m, const char *one,
				const char *many);

/* Writes how a resource at current fails m, as the end of a sentence that
 * starts "... is at version <current>": ", not 3", ", not any of 3, 4" or
 * "; If-Match names no version (a weak tag or a tag that is no version never
 * matches)". Truncated to out_size. */
void rig_if_match_describe(char *out, size_t out_size, const struct rig_if_match *m);

#endif
