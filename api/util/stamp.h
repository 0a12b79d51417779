/* Fresh ids and wall-clock timestamps: lock leases, receipts, audit records —
 * never evaluation, which reads no clock.
 */
#ifndef RIG_STAMP_H
#define RIG_STAMP_H

#include "core/err.h"
#include "core/ids.h"

/* Writes a fresh server-generated id with the given prefix ("L-", "r-", …). */
void rig_api__new_id(char out[RIG_ID_MAX + 1], const char *prefix);

/* Formats Unix milliseconds as ISO 8601 UTC ("2026-11-29T15:02:09.991Z") into
 * out[RIG_TIMESTAMP_MAX]. */
void rig_api__iso8601(char out[RIG_TIMESTAMP_MAX], long long unix_ms);

/* The wall clock in Unix milliseconds (lock leases, timestamps; never evaluation). */
long long rig_api__now_ms(void);

#endif
