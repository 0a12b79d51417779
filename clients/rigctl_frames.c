/* rigctl frames: streams GET /v1/shots/{id}/layers/{id}/frames (obj, or f32
 * version 2) into one file per frame through frame_split.c, with a progress
 * bar on stderr when it is a terminal. A range the server ended with an error
 * is reported with its frame, code and detail, and exits 1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients/frame_split.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

#define BAR_WIDTH 30

struct progress {
	bool on;
	size_t fallback_total; /* from --from/--to/--step when the stream does not say */
	int last_fill;
	size_t last_n;
};

static void draw(struct progress *p, const struct rig_split *s)
{
	size_t total = s->n_expected ? s->n_expected : p->fallback_total;
	if (!p->on)
		return;
	if (total == 0) {
		fprintf(stderr, "\rframes written: %zu", s->n_written);
		return;
	}
	int fill = (int)(s->n_written * BAR_WIDTH / (total ? total : 1));
	if (fill > BAR_WIDTH)
		fill = BAR_WIDTH;
	/* Redraw when the bar or the hundredth changes, not for every frame. */
	if (fill == p->last_fill && s->n_written != total &&
	    s->n_written * 100 / total == p->last_n * 100 / total)
		return;
	p->last_fill = fill;
	p->last_n = s->n_written;
	fprintf(stderr, "\rframes [%.*s%.*s] %zu/%zu", fill, "##############################",
		BAR_WIDTH - fill, "..............................", s->n_written, total);
	fflush(stderr);
}

static void on_frame(void *ctx, const struct rig_split *s)
{
	draw(ctx, s);
}

static int sink(void *ctx, const char *data, size_t len)
{
	return rig_split_feed(ctx, data, len) == 0 ? 0 : 1;
}

/* mkdir -p: creates dir and its missing parents. Returns 0 or -1 (errno). */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t len = strlen(dir);
	if (len == 0 || len >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char saved = path[i];
		path[i] = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return -1;
		path[i] = saved;
	}
	struct stat st;
	if (stat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Reads the frame options (checked by rig_args_resolve) into split and the
 * bar's count until the stream says. */
static void read_options(const struct rig_ctl *c, size_t *out_fallback_total,
			 struct rig_split *split)
{
	double from = rig_ctl_number(c, RIG_CTL_O_FRAME_FROM);
	double to = rig_ctl_number(c, RIG_CTL_O_FRAME_TO);
	double step = rig_ctl_number(c, RIG_CTL_O_STEP);
	split->has_from = rig_ctl_opt(c, RIG_CTL_O_FRAME_FROM) != NULL;
	split->from = from;
	split->step = step;
	/* The server's own count (api/handlers/frame_range.c), for the bar until the stream says.
	 */
	*out_fallback_total = 0;
	if (rig_ctl_opt(c, RIG_CTL_O_FRAME_FROM) && rig_ctl_opt(c, RIG_CTL_O_FRAME_TO) &&
	    step > 0 && to >= from)
		*out_fallback_total = (size_t)(floor((to - from) / step + 1e-9) + 1);
}

static int print_summary(const struct rig_ctl *c, const struct rig_split *s, const char *dir)
{
	if (c->format == RIG_CTL_TABLE) {
		if (s->n_written == 0)
			printf("no frames written to %s\n", dir);
		else
			printf("wrote %zu frame file%s to %s (%s%s%s)\n", s->n_written,
			       s->n_written == 1 ? "" : "s", dir, s->first_name,
			       s->n_written > 1 ? " … " : "", s->n_written > 1 ? s->last_name : "");
		return RIG_EXIT_OK;
	}
	json_t *o =
		json_pack("{s:s, s:I, s:s, s:s}", "dir", dir, "frames", (json_int_t)s->n_written,
			  "first", s->first_name, "last", s->last_name);
	int rc = o ? rig_ctl_print_json(o) : rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	json_decref(o);
	return rc;
}

/* The errors a failed range's problem lists, as a refused request's are printed. */
static void report_problem_errors(const json_t *problem)
{
	const json_t *errors = json_object_get(problem, "errors");
	for (size_t i = 0; i < json_array_size(errors); i++)
		rig_report_error(stderr, i, json_array_get(errors, i));
}

int rig_ctl_frames(struct rig_ctl *c)
{
	/* the row's words: obj, f32 */
	enum rig_split_format format =
		c->opts[RIG_CTL_O_FILE_FORMAT].choice == 1 ? RIG_SPLIT_F32 : RIG_SPLIT_OBJ;
	struct progress progress = {.on = false, .last_fill = -1};
	const char *dir = rig_ctl_opt(c, RIG_CTL_O_OUT);
	struct rig_split split;
	int rc = RIG_EXIT_OK;
	rig_split_init(&split, format, dir, on_frame, &progress);
	read_options(c, &progress.fallback_total, &split);
	if (make_dirs(dir) != 0) {
		rig_split_release(&split);
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot create the directory '%s': %s",
				       dir, strerror(errno));
	}
	progress.on = !rig_ctl_flag(c, RIG_CTL_O_NO_PROGRESS) && isatty(STDERR_FILENO);
	struct rig_http_resp resp;
	struct rig_url u;
	rig_http_resp_init(&resp);
	rig_url_init(&u);
	rig_url_path(&u, "/v1/shots");
	rig_url_segment(&u, rig_ctl_opt(c, RIG_CTL_O_SHOT));
	rig_url_path(&u, "/layers");
	rig_url_segment(&u, rig_ctl_opt(c, RIG_CTL_O_LAYER));
	rig_url_path(&u, "/frames");
	rig_url_query(&u, "from", rig_ctl_opt(c, RIG_CTL_O_FRAME_FROM));
	rig_url_query(&u, "to", rig_ctl_opt(c, RIG_CTL_O_FRAME_TO));
	rig_url_query(&u, "step", rig_ctl_opt(c, RIG_CTL_O_STEP));
	rig_url_query(&u, "space", rig_ctl_opt(c, RIG_CTL_O_SPACE));
	rig_url_query(&u, "format", format == RIG_SPLIT_F32 ? "f32" : "obj");
	/* Version 2 ends a range that fails on the server with an error record. */
	if (format == RIG_SPLIT_F32)
		rig_url_query(&u, "f32Version", "2");
	struct rig_http_req req = {.target = rig_url_get(&u), .sink = sink, .sink_ctx = &split};
	if (!req.target) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	int sent = rig_http_send(&c->http, &req, &resp);
	bool whole = sent == 0 && rig_http_ok(&resp);
	/* The stream's last frame is complete (and drawn) only once it is finished, so the
	 * bar's line ends after that, not before. */
	int finished = whole ? rig_split_finish(&split) : 0;
	if (progress.on && split.n_written)
		fputc('\n', stderr);
	if (sent != 0 && resp.sink_rc) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "%s", split.error);
	} else if (!whole) {
		rc = rig_report_send(stderr, RIG_CTL_PROG, sent, &c->http, &resp);
	} else if (finished != 0) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "%s", split.error);
		report_problem_errors(split.problem);
	} else {
		rc = print_summary(c, &split, dir);
		goto out;
	}
	if (split.n_written)
		fprintf(stderr, RIG_CTL_PROG ": %zu complete frame file%s kept in %s\n",
			split.n_written, split.n_written == 1 ? " is" : "s are", dir);
out:
	rig_url_release(&u);
	rig_http_resp_release(&resp);
	rig_split_release(&split);
	return rc;
}
