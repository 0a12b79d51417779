/* JSON log lines of log.h. */
#include "server/log.h"

#include "api/util/textbuf.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Now as 2026-01-02T03:04:05.678Z. */
static void stamp_now(char out[RIG_TIMESTAMP_MAX])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(out, RIG_TIMESTAMP_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

void rig_log(const char *level, const char *msg, json_t *fields)
{
	char stamp[RIG_TIMESTAMP_MAX];
	stamp_now(stamp);
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

void rig_log_request(const char *method, const char *path, int status, double duration_ms,
		     const char *request_id, const char *token_id, long long request_bytes,
		     int terminated, const char *ran_on)
{
	char stamp[RIG_TIMESTAMP_MAX];
	stamp_now(stamp);
	char *clean_path = strdup(path);
	if (!clean_path)
		return;
	rig_utf8_scrub(clean_path); /* a refused request's path may be any bytes */
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_printf(&b,
		       "{\"ts\":\"%s\",\"level\":\"info\",\"msg\":\"request\",\"method\":", stamp);
	rig_buf_json_string(&b, method);
	rig_buf_puts(&b, ",\"path\":");
	rig_buf_json_string(&b, clean_path);
	rig_buf_printf(&b, ",\"status\":%d,\"durationMs\":%.6g,\"requestId\":", status,
		       duration_ms);
	rig_buf_json_string(&b, request_id);
	if (token_id && *token_id) {
		rig_buf_puts(&b, ",\"tokenId\":");
		rig_buf_json_string(&b, token_id);
	}
	rig_buf_printf(&b, ",\"requestBytes\":%lld", request_bytes);
	if (ran_on)
		rig_buf_printf(&b, ",\"ranOn\":\"%s\"", ran_on);
	if (terminated >= 0)
		rig_buf_printf(&b, ",\"terminated\":%d", terminated);
	rig_buf_puts(&b, "}\n");
	if (!b.oom) {
		ssize_t w = write(STDERR_FILENO, b.data, b.len);
		(void)w;
	}
	rig_buf_release(&b);
	free(clean_path);
}
