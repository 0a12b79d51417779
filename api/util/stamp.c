/* Ids and timestamps of stamp.h. */
#include "api/util/stamp.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void rig_api__new_id(char out[RIG_ID_MAX + 1], const char *prefix)
{
	unsigned char raw[8] = {0};
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		/* Not a security token: fall back on the clock and address entropy. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		unsigned long long v = (unsigned long long)ts.tv_nsec ^
				       ((unsigned long long)ts.tv_sec << 20) ^ (uintptr_t)out;
		memcpy(raw, &v, sizeof raw);
	}
	snprintf(out, RIG_ID_MAX + 1, "%s%02x%02x%02x%02x%02x%02x%02x%02x", prefix, raw[0], raw[1],
		 raw[2], raw[3], raw[4], raw[5], raw[6], raw[7]);
}

void rig_api__iso8601(char out[RIG_TIMESTAMP_MAX], long long unix_ms)
{
	time_t secs = (time_t)(unix_ms / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	snprintf(out, RIG_TIMESTAMP_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, unix_ms % 1000);
}

long long rig_api__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
