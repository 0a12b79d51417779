/* Structured logging: one JSON object per line on stderr, written with a single
 * write(2) so lines from different threads never interleave.
 */
#ifndef RIG_LOG_H
#define RIG_LOG_H

#include <jansson.h>

/* Logs fields (reference stolen; may be NULL) with "ts", "level" and "msg" added. */
void rig_log(const char *level, const char *msg, json_t *fields);

#endif
