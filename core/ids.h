/* The id rule of SPEC §1, used for project, shot, layer, plan, lock, receipt and
 * joint ids alike: 1–64 characters of [A-Za-z0-9_.:-], except "." and ".."
 * (path segments HTTP clients remove; other ids with dots are valid).
 */
#ifndef RIG_IDS_H
#define RIG_IDS_H

#include <stdbool.h>
#include <stddef.h>

/* True when s is a valid id. */
bool rig_id_is_valid(const char *s);

/* True when the first len bytes of s form a valid id. */
bool rig_id_is_valid_n(const char *s, size_t len);

#endif
