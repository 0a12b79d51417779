/* Typed field reads from request JSON that record every problem as a violation
 * with its JSON pointer, so a whole op or body is checked in one pass.
 *
 * A reader carries the code to report (OP_INVALID inside edit ops,
 * INVALID_FIELD in resource bodies), the pointer prefix of the object being read
 * and the op index. Each read returns 0 when the field is valid or absent and
 * optional, -1 after recording a violation.
 */
#ifndef RIG_JSONREAD_H
#define RIG_JSONREAD_H

#include <jansson.h>
#include <stdbool.h>

#include "core/err.h"

struct rig_jr {
	struct rig_errs *errs;
	enum rig_code code;
	const char *base; /* pointer of the object, e.g. "/ops/3" */
	long op_index;
};

/* Records a violation at base + "/" + key with a printf detail; returns -1. */
int rig_jr_fail(const struct rig_jr *jr, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records that memory ran out while decoding key: MEMORY_BUSY (503, the
 * server's condition, never the client's) at base + "/" + key; returns -1. */
int rig_jr_out_of_memory(const struct rig_jr *jr, const char *key);

/* Rejects members of obj not listed in allowed (NULL-terminated). */
int rig_jr_known(const struct rig_jr *jr, json_t *obj, const char *const *allowed);

/* A string of 1..max_bytes bytes. *out borrowed from obj; untouched when absent. */
int rig_jr_string(const struct rig_jr *jr, json_t *obj, const char *key, bool required,
		  size_t max_bytes, const char **out);

/* An id (SPEC §1 rule) copied into out[RIG_ID_MAX + 1]; out untouched when absent.
 * When nullable, JSON null is accepted and sets *is_null. */
int rig_jr_id(const struct rig_jr *jr, json_t *obj, const char *key, bool required, bool nullable,
	      char *out, bool *is_null);

/* A finite number; *present says whether it was given. */
int rig_jr_number(const struct rig_jr *jr, json_t *obj, const char *key, bool required, double *out,
		  bool *present);

/* A boolean; *out untouched when absent. */
int rig_jr_bool(const struct rig_jr *jr, json_t *obj, const char *key, bool required, bool *out);

/* An integer in [min, max]. */
int rig_jr_int(const struct rig_jr *jr, json_t *obj, const char *key, bool required, long long min,
	       long long max, long long *out, bool *present);

/* A number that is an exact integer in [min, max] (accepts 3 and 3.0). */
int rig_jr_index(const struct rig_jr *jr, json_t *value, const char *key, long long min,
		 long long max, long long *out);

#endif
