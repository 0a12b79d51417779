/* JSON log lines of log.h. */
#include "server/log.h"

#include "api/util/textbuf.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Now as 2026-01-02T03:04:05.678Z. The text up to the second is kept per
 * thread: the access log writes a stamp per request, and formatting the
 * date each time was a visible part of a small request's cost. */
static void stamp_now(char out[RIG_TIMESTAMP_MAX])
{
	static _Thread_local time_t second = -1;
	static _Thread_local char prefix[RIG_TIMESTAMP_MAX]; /* "2026-01-02T03:04:05" */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != second) {
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		snprintf(prefix, sizeof prefix, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		second = ts.tv_sec;
	}
	size_t n = strlen(prefix);
	if (n > RIG_TIMESTAMP_MAX - 6)
		n = RIG_TIMESTAMP_MAX - 6; /* past year 9999 */
	unsigned ms = (unsigned)(ts.tv_nsec / 1000000);
	memcpy(out, prefix, n);
	out[n] = '.';
	out[n + 1] = (char)('0' + ms / 100);
	out[n + 2] = (char)('0' + ms / 10 % 10);
	out[n + 3] = (char)('0' + ms % 10);
	out[n + 4] = 'Z';
	out[n + 5] = '\0';
}

/* An integer, without printf (the access log runs once per request). */
static void put_int(struct rig_buf *b, long long v)
{
	char digits[24];
	if (v < 0) {
		rig_buf_puts(b, "-");
		v = -v;
	}
	rig_buf_put(b, digits, (size_t)rig_format_u64(digits, (uint64_t)v));
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
	rig_buf_puts(&b, "{\"ts\":\"");
	rig_buf_puts(&b, stamp);
	rig_buf_puts(&b, "\",\"level\":\"info\",\"msg\":\"request\",\"method\":");
	rig_buf_json_string(&b, method);
	rig_buf_puts(&b, ",\"path\":");
	rig_buf_json_string(&b, clean_path);
	rig_buf_puts(&b, ",\"status\":");
	put_int(&b, status);
	/* Milliseconds to the microsecond. */
	long long us = duration_ms > 0 ? (long long)(duration_ms * 1e3 + 0.5) : 0;
	char frac[5] = {'.', (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10),
			(char)('0' + us % 10), '\0'};
	rig_buf_puts(&b, ",\"durationMs\":");
	put_int(&b, us / 1000);
	rig_buf_puts(&b, frac);
	rig_buf_puts(&b, ",\"requestId\":");
	rig_buf_json_string(&b, request_id);
	if (token_id && *token_id) {
		rig_buf_puts(&b, ",\"tokenId\":");
		rig_buf_json_string(&b, token_id);
	}
	rig_buf_puts(&b, ",\"requestBytes\":");
	put_int(&b, request_bytes);
	if (ran_on) {
		rig_buf_puts(&b, ",\"ranOn\":\"");
		rig_buf_puts(&b, ran_on);
		rig_buf_puts(&b, "\"");
	}
	if (terminated >= 0) {
		rig_buf_puts(&b, ",\"terminated\":");
		put_int(&b, terminated);
	}
	rig_buf_puts(&b, "}\n");
	if (!b.oom) {
		ssize_t w = write(STDERR_FILENO, b.data, b.len);
		(void)w;
	}
	rig_buf_release(&b);
	free(clean_path);
}
