/* Splitting a frame range into per-frame files (frame_split.h). */
#include "clients/frame_split.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/output.h"

/* The largest draw-order record: maxTriangles (GET /v1/limits) u32 indices, padded. */
#define MAX_ORDER_BYTES (4 * ((uint64_t)2097152 + 1))

static int fail(struct rig_split *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct rig_split *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof s->error, fmt, ap);
	va_end(ap);
	return -1;
}

void rig_split_init(struct rig_split *s, enum rig_split_format format, const char *dir,
		    rig_split_progress on_frame, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->format = format;
	s->dir = dir;
	s->on_frame = on_frame;
	s->on_frame_ctx = ctx;
	rig_bytes_init(&s->line);
}

/* The largest error record or line taken: a problem holds at most 64 errors. */
#define MAX_PROBLEM_BYTES (1u << 20)

void rig_split_release(struct rig_split *s)
{
	if (s->file) {
		fclose(s->file);
		unlink(s->tmp_path);
		s->file = NULL;
	}
	rig_bytes_release(&s->line);
	json_decref(s->problem);
	s->problem = NULL;
}

/* ---- frame files ---- */

/* A frame name from the server becomes a file name: keep it to characters
 * that cannot leave the directory or surprise a shell. */
static bool is_safe_name(const char *name, size_t len)
{
	if (len == 0 || len > 80 || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!isalnum(c) && !strchr("._+-", c))
			return false;
	}
	return true;
}

static int open_frame(struct rig_split *s, const char *name, size_t len, const char *ext)
{
	if (!is_safe_name(name, len))
		return fail(s, "the server named a frame '%.*s', which is not a safe file name",
			    (int)(len > 80 ? 80 : len), name);
	/* "out/" and "out" name the same directory; "/" stays itself. */
	int dir_len = (int)strlen(s->dir);
	while (dir_len > 1 && s->dir[dir_len - 1] == '/')
		dir_len--;
	const char *sep = dir_len == 1 && s->dir[0] == '/' ? "" : "/";
	int n = snprintf(s->path, sizeof s->path, "%.*s%s%.*s.%s", dir_len, s->dir, sep, (int)len,
			 name, ext);
	int m = snprintf(s->tmp_path, sizeof s->tmp_path, "%.*s%s.%.*s.%s.part", dir_len, s->dir,
			 sep, (int)len, name, ext);
	if (n < 0 || m < 0 || (size_t)m >= sizeof s->tmp_path)
		return fail(s, "the output path '%s/…' is too long", s->dir);
	s->file = fopen(s->tmp_path, "wb");
	if (!s->file)
		return fail(s, "cannot create '%s': %s", s->tmp_path, strerror(errno));
	snprintf(s->last_name, sizeof s->last_name, "%.*s.%s", (int)len, name, ext);
	if (s->n_written == 0)
		snprintf(s->first_name, sizeof s->first_name, "%s", s->last_name);
	return 0;
}

/* Completes the open frame file: flush, close, move into place. */
static int close_frame(struct rig_split *s)
{
	if (!s->file)
		return 0;
	bool bad = ferror(s->file) != 0;
	bad |= fclose(s->file) != 0;
	s->file = NULL;
	if (bad) {
		int saved = errno;
		unlink(s->tmp_path);
		return fail(s, "cannot write '%s': %s", s->path, strerror(saved));
	}
	if (rename(s->tmp_path, s->path) != 0) {
		int saved = errno;
		unlink(s->tmp_path);
		return fail(s, "cannot create '%s': %s", s->path, strerror(saved));
	}
	s->n_written++;
	if (s->on_frame)
		s->on_frame(s->on_frame_ctx, s);
	return 0;
}

/* ---- frame names and numbers ---- */

static bool is_whole(double v)
{
	return fabs(v - nearbyint(v)) <= 1e-9 * fmax(1, fabs(v));
}

static int n_digits(double v)
{
	int n = 1;
	for (; v >= 10 && n < 40; v /= 10)
		n++;
	return n;
}

/* Fixes the naming of the range at its first frame (frame_split.h). */
static void choose_names(struct rig_split *s, double first)
{
	double step = s->step > 0 ? s->step : 1;
	size_t n = s->n_expected ? s->n_expected : 1;
	double last = first + (double)(n - 1) * step;
	s->name_decimals = -1;
	if (first >= 0 && last < 1e15)
		for (int d = 0; d <= 6 && s->name_decimals < 0; d++)
			if (is_whole(first * pow(10, d)) && is_whole(step * pow(10, d)))
				s->name_decimals = d;
	if (s->name_decimals < 0)
		s->name_width = n_digits((double)(n - 1));
	else
		s->name_width =
			n_digits(floor(last)) + (s->name_decimals ? s->name_decimals + 1 : 0);
}

/* Checks that frame is from + i·step for the i-th frame of the range, as the
 * server computes it, then opens its file. */
static int open_numbered(struct rig_split *s, double frame, const char *ext)
{
	size_t i = s->n_written;
	if (i == 0) {
		if (!s->has_from)
			s->from = frame;
		choose_names(s, s->from);
	}
	double want = s->from + (double)i * (s->step > 0 ? s->step : 1);
	if (frame != want) {
		char got_text[RIG_OUT_DOUBLE_MAX], want_text[RIG_OUT_DOUBLE_MAX];
		rig_out_double(got_text, frame);
		rig_out_double(want_text, want);
		return fail(s, "frame %zu of the range is %s, not from + %zu·step = %s", i,
			    got_text, i, want_text);
	}
	char name[64 + RIG_OUT_DOUBLE_MAX];
	int len;
	if (s->name_decimals >= 0) {
		len = snprintf(name, sizeof name, "frame_%0*.*f", s->name_width, s->name_decimals,
			       frame);
	} else {
		char text[RIG_OUT_DOUBLE_MAX];
		rig_out_double(text, frame);
		len = snprintf(name, sizeof name, "frame_%0*zu_%s", s->name_width, i, text);
	}
	if (len < 0 || (size_t)len >= sizeof name)
		return fail(s, "frame %zu cannot be named", i);
	return open_frame(s, name, (size_t)len, ext);
}

/* Takes the problem a failed range ended with (reference stolen). */
static int take_problem(struct rig_split *s, double frame, json_t *problem)
{
	if (!json_is_object(problem) || !json_is_string(json_object_get(problem, "code"))) {
		json_decref(problem);
		return fail(s, "the range's error terminator holds no problem");
	}
	s->problem = problem;
	s->failed_frame = frame;
	s->ended = true;
	return 0;
}

/* ---- obj ---- */

/* "... 12 frames, ..." in the range's comment line announces the count. */
static size_t announced_frames(const char *header)
{
	for (const char *p = header; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > header && p[-1] != ' '))
			continue;
		char *end = NULL;
		unsigned long long n = strtoull(p, &end, 10);
		if (strncmp(end, " frames", 7) == 0)
			return (size_t)n;
	}
	return 0;
}

/* Rewrites "f a b c" with each vertex index made local to the current object. */
static int write_face(struct rig_split *s, const char *line, size_t len)
{
	const char *p = line + 1, *end = line + len;
	if (fputc('f', s->file) == EOF)
		return fail(s, "cannot write '%s'", s->path);
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		const char *tok = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		char *after = NULL;
		long long v = strtoll(tok, &after, 10);
		if (after == tok || after > p)
			return fail(s, "malformed face line '%.*s'", (int)(len > 80 ? 80 : len),
				    line);
		if (v > 0) {
			/* Global 1-based index → 1-based within this object. */
			long long local = v - (long long)s->verts_before;
			if (local < 1 || (unsigned long long)local > s->verts)
				return fail(s,
					    "face index %lld is outside object '%s' (its vertices"
					    " are %llu to %llu)",
					    v, s->last_name,
					    (unsigned long long)s->verts_before + 1,
					    (unsigned long long)(s->verts_before + s->verts));
			v = local;
		}
		if (fprintf(s->file, " %lld%.*s", v, (int)(p - after), after) < 0)
			return fail(s, "cannot write '%s'", s->path);
	}
	return fputc('\n', s->file) == EOF ? fail(s, "cannot write '%s'", s->path) : 0;
}

/* '# error {"frame": F, "problem": {…}}' ends a range that failed. */
static int obj_error(struct rig_split *s, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *o = json_loadb(line + 8, len - 8, 0, &jerr);
	json_t *frame = json_object_get(o, "frame");
	json_t *problem = json_incref(json_object_get(o, "problem"));
	bool is_number = json_is_number(frame);
	double f = json_number_value(frame);
	json_decref(o); /* frame goes with it */
	if (!is_number) {
		json_decref(problem);
		return fail(s, "the response's '# error' line is not {frame, problem}");
	}
	if (close_frame(s) != 0) {
		json_decref(problem);
		return -1;
	}
	return take_problem(s, f, problem);
}

static int obj_line(struct rig_split *s, const char *line, size_t len)
{
	if (len && line[len - 1] == '\r')
		len--;
	if (s->ended)
		return len ? fail(s, "the response goes on after its '# error' line") : 0;
	if (len >= 8 && memcmp(line, "# error ", 8) == 0)
		return obj_error(s, line, len);
	if (len >= 2 && line[0] == 'o' && (line[1] == ' ' || line[1] == '\t')) {
		const char *name = line + 2;
		size_t n = len - 2;
		while (n && (*name == ' ' || *name == '\t'))
			name++, n--;
		while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
			n--;
		char text[RIG_OUT_DOUBLE_MAX + 8], *end = NULL;
		double frame = 0;
		if (n > 6 && n - 6 < sizeof text) {
			memcpy(text, name + 6, n - 6);
			text[n - 6] = '\0';
			frame = strtod(text, &end);
		}
		if (!end || strncmp(name, "frame_", 6) != 0 || *end || !isfinite(frame))
			return fail(s, "the response names an object '%.*s', not frame_<number>",
				    (int)(n > 80 ? 80 : n), name);
		if (close_frame(s) != 0 || open_numbered(s, frame, "obj") != 0)
			return -1;
		s->verts_before += s->verts;
		s->verts = 0;
		if (s->header[0] && fprintf(s->file, "# from %s\n", s->header) < 0)
			return fail(s, "cannot write '%s'", s->path);
		return fprintf(s->file, "o %.*s\n", (int)n, name) < 0
			       ? fail(s, "cannot write '%s'", s->path)
			       : 0;
	}
	if (!s->file) {
		/* Before the first object: the range's comment line, or nothing we need. */
		if (len >= 2 && line[0] == '#' && !s->header[0]) {
			size_t skip = line[1] == ' ' ? 2 : 1;
			snprintf(s->header, sizeof s->header, "%.*s", (int)(len - skip),
				 line + skip);
			s->n_expected = announced_frames(s->header);
		} else if (len && (line[0] == 'v' || line[0] == 'f')) {
			return fail(s, "the response has geometry before its first object");
		}
		return 0;
	}
	if (len >= 2 && line[0] == 'f' && (line[1] == ' ' || line[1] == '\t'))
		return write_face(s, line, len);
	if (len >= 2 && line[0] == 'v' && (line[1] == ' ' || line[1] == '\t'))
		s->verts++;
	if (fwrite(line, 1, len, s->file) != len || fputc('\n', s->file) == EOF)
		return fail(s, "cannot write '%s'", s->path);
	return 0;
}

static int obj_feed(struct rig_split *s, const char *data, size_t len)
{
	if (rig_bytes_append(&s->line, data, len) != 0)
		return fail(s, "out of memory");
	size_t done = 0;
	const char *nl;
	while ((nl = memchr(s->line.data + done, '\n', s->line.len - done))) {
		size_t n = (size_t)(nl - (s->line.data + done));
		if (obj_line(s, s->line.data + done, n) != 0)
			return -1;
		done += n + 1;
	}
	rig_bytes_consume(&s->line, done);
	return 0;
}

/* ---- f32 ---- */

static uint32_t u32le(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double f64le(const unsigned char *p)
{
	uint64_t bits = 0;
	for (int i = 7; i >= 0; i--)
		bits = bits << 8 | p[i];
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

static int f32_header(struct rig_split *s)
{
	if (memcmp(s->head, "RIGF", 4) != 0)
		return fail(s, "the response is not RIGF frames (it starts with '%.4s')", s->head);
	s->version = u32le(s->head + 4);
	if (s->version != 1 && s->version != 2)
		return fail(s, "RIGF version %u is not supported (this rigctl reads 1 and 2)",
			    s->version);
	s->n_verts = u32le(s->head + 8);
	s->n_expected = u32le(s->head + 12);
	s->record_size = 8 + 8 * (uint64_t)s->n_verts;
	return 0;
}

/* Version 2: the record's tag and byteLength have arrived. */
static int f32_record_start(struct rig_split *s)
{
	s->tag = u32le(s->tag_bytes);
	uint32_t len = u32le(s->tag_bytes + 4);
	if (s->tag == 1) {
		if (len != 8 + 8 * (uint64_t)s->n_verts)
			return fail(s, "frame record %zu has byteLength %u, not %llu", s->n_written,
				    len, 8 + 8 * (unsigned long long)s->n_verts);
		s->record_size = len;
		return 0;
	}
	if (s->tag == 2) {
		if (len < 8 || len > MAX_PROBLEM_BYTES)
			return fail(s, "the error record's byteLength %u is not 8 to %u", len,
				    MAX_PROBLEM_BYTES);
		s->record_size = len;
		rig_bytes_clear(&s->line);
		return 0;
	}
	if (s->tag == 3) { /* the next frame's draw order (a puppet's overlap): not split out */
		if (len % 8 || len > MAX_ORDER_BYTES)
			return fail(s,
				    "the order record's byteLength %u is not a multiple of 8 up to"
				    " the triangle limit",
				    len);
		s->record_size = len;
		return 0;
	}
	return fail(s, "record %zu has tag %u, not 1 (frame), 2 (error) or 3 (draw order)",
		    s->n_written, s->tag);
}

/* Version 2: the error record is complete in s->line: f64 frame, problem. */
static int f32_error(struct rig_split *s)
{
	json_error_t jerr;
	json_t *problem = json_loadb(s->line.data + 8, s->line.len - 8, 0, &jerr);
	return take_problem(s, f64le((const unsigned char *)s->line.data), problem);
}

/* Starts the frame file once the record's f64 frame number has arrived. */
static int f32_start_frame(struct rig_split *s)
{
	if (s->n_written >= s->n_expected)
		return fail(s, "the response holds more frames than the %zu it announced",
			    s->n_expected);
	if (open_numbered(s, f64le(s->frame_bytes), "f32") != 0)
		return -1;
	unsigned char head[16];
	memcpy(head, s->head, 16); /* magic, version 1, vertexCount, frameCount 1 */
	head[4] = 1, head[5] = head[6] = head[7] = 0;
	head[12] = 1, head[13] = head[14] = head[15] = 0;
	if (fwrite(head, 1, 16, s->file) != 16 || fwrite(s->frame_bytes, 1, 8, s->file) != 8)
		return fail(s, "cannot write '%s'", s->path);
	return 0;
}

static int f32_feed(struct rig_split *s, const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	while (len > 0) {
		size_t take;
		if (s->ended)
			return fail(s, "the response goes on after its error record");
		if (s->head_len < 16) {
			take = 16 - s->head_len < len ? 16 - s->head_len : len;
			memcpy(s->head + s->head_len, p, take);
			s->head_len += take;
			if (s->head_len == 16 && f32_header(s) != 0)
				return -1;
		} else if (s->version == 2 && s->tag_len < 8) {
			take = 8 - s->tag_len < len ? 8 - s->tag_len : len;
			memcpy(s->tag_bytes + s->tag_len, p, take);
			s->tag_len += take;
			if (s->tag_len == 8 && f32_record_start(s) != 0)
				return -1;
		} else if (s->version == 2 && s->tag == 2) {
			uint64_t left = s->record_size - s->record_pos;
			take = left < len ? (size_t)left : len;
			if (rig_bytes_append(&s->line, (const char *)p, take) != 0)
				return fail(s, "out of memory");
			s->record_pos += take;
		} else if (s->version == 2 && s->tag == 3) {
			uint64_t left = s->record_size - s->record_pos;
			take = left < len ? (size_t)left : len;
			s->record_pos += take;
		} else if (s->record_pos < 8) {
			take = 8 - s->record_pos < len ? 8 - (size_t)s->record_pos : len;
			memcpy(s->frame_bytes + s->record_pos, p, take);
			s->record_pos += take;
			if (s->record_pos == 8 && f32_start_frame(s) != 0)
				return -1;
		} else {
			uint64_t left = s->record_size - s->record_pos;
			take = left < len ? (size_t)left : len;
			if (fwrite(p, 1, take, s->file) != take)
				return fail(s, "cannot write '%s'", s->path);
			s->record_pos += take;
		}
		p += take;
		len -= take;
		bool in_record = s->head_len == 16 && (s->version == 1 || s->tag_len == 8);
		if (in_record && s->record_pos == s->record_size) {
			bool is_error = s->version == 2 && s->tag == 2;
			bool is_order = s->version == 2 && s->tag == 3;
			s->record_pos = 0;
			s->tag_len = 0;
			s->record_size = 8 + 8 * (uint64_t)s->n_verts;
			if (!is_order && (is_error ? f32_error(s) != 0 : close_frame(s) != 0))
				return -1;
		}
	}
	return 0;
}

/* ---- both ---- */

int rig_split_feed(struct rig_split *s, const char *data, size_t len)
{
	return s->format == RIG_SPLIT_OBJ ? obj_feed(s, data, len) : f32_feed(s, data, len);
}

int rig_split_finish(struct rig_split *s)
{
	if (s->format == RIG_SPLIT_OBJ) {
		if (s->line.len && obj_line(s, s->line.data, s->line.len) != 0)
			return -1;
		rig_bytes_clear(&s->line);
		if (close_frame(s) != 0)
			return -1;
	} else if (s->head_len < 16) {
		return fail(s, "the response ended inside the RIGF header (%zu of 16 bytes)",
			    s->head_len);
	} else if (s->record_pos != 0 || s->tag_len != 0) {
		return fail(s, "the response ended inside frame %zu of %zu", s->n_written + 1,
			    s->n_expected);
	}
	if (s->problem) {
		char frame[RIG_OUT_DOUBLE_MAX];
		rig_out_double(frame, s->failed_frame);
		return fail(s, "the range failed at frame %s: %s: %s", frame,
			    json_string_value(json_object_get(s->problem, "code")),
			    json_is_string(json_object_get(s->problem, "detail"))
				    ? json_string_value(json_object_get(s->problem, "detail"))
				    : "");
	}
	if (s->n_expected && s->n_written != s->n_expected)
		return fail(s, "the response ended after %zu of the %zu frames it announced",
			    s->n_written, s->n_expected);
	if (s->n_written == 0 && s->format == RIG_SPLIT_OBJ)
		return fail(s, "the response holds no frames");
	return 0;
}
