/* JSON log lines of log.h. */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rig_log(const char *level, const char *msg, json_t *fields)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char stamp[40];
	snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	json_t *line = json_pack("{s:s, s:s, s:s}", "ts", stamp, "level", level, "msg", msg);
	if (fields) {
		json_object_update(line, fields);
		json_decref(fields);
	}
	char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(line);
	if (!text)
		return;
	size_t len = strlen(text);
	char *buf = malloc(len + 2);
	if (buf) {
		memcpy(buf, text, len);
		buf[len] = '\n';
		ssize_t w = write(STDERR_FILENO, buf, len + 1);
		(void)w;
	}
	free(buf);
	free(text);
}
