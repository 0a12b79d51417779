/* rigd: the process. Parses the configuration, opens the store (running
 * migrations), starts the HTTP front, and runs a libuv loop that owns signals
 * (SIGTERM/SIGINT drain in-flight requests, then close the database cleanly)
 * and the housekeeping timer (expired idempotency keys and locks, history
 * compaction), whose sweeps run on libuv's work queue so that a long one never
 * holds up signals or the connection sweep.
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "api/app.h"
#include "api/http/auth.h"
#include "api/util/membudget.h"
#include "server/config.h"
#include "server/health.h"
#include "server/http.h"
#include "server/log.h"
#include "server/token_cli.h"

struct server {
	struct rig_config cfg;
	struct rig_app app;
	struct rig_http *http;
	uv_loop_t *loop;
	uv_signal_t sigterm, sigint;
	uv_timer_t housekeeping;
	uv_work_t housekeeping_work;
	bool housekeeping_busy; /* a sweep is queued or running */
	long long housekeeping_dropped;
	uv_timer_t sweep;
	struct rig_health *health; /* --health-listen; NULL when none */
	uv_timer_t drain;
	uint64_t drain_deadline_ms;
	bool draining;
};

static void on_sweep(uv_timer_t *t)
{
	struct server *s = t->data;
	rig_http_sweep(s->http);
	rig_membudget_trim(s->app.budget); /* after a large request: heap back to the kernel */
}

/* glibc's malloc, tuned for a server whose large requests come and go:
 * - a fixed mmap threshold: the default one rises after each large free (up to
 *   32 MiB), after which big buffers come from the heap and stay in RSS;
 * - a trim threshold of 1 MiB, not 128 KiB: a frame's buffers (80 KB apiece)
 *   freed at the top of a heap would otherwise go back to the kernel and fault
 *   in again on the next request, page by page; a large request's memory is
 *   still returned, by the loop's malloc_trim (rig_membudget_trim);
 * - at most two arenas per core: each worker thread would otherwise get its
 *   own arena, whose free memory no other thread reuses. */
static void tune_malloc(unsigned threads)
{
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 20);
	mallopt(M_ARENA_MAX, (int)(2 * threads));
}

/* On a worker thread: the store serves any thread, as it does the HTTP ones. */
static void housekeeping_work(uv_work_t *w)
{
	struct server *s = w->data;
	s->housekeeping_dropped = rig_app_housekeeping(&s->app);
}

static void housekeeping_done(uv_work_t *w, int status)
{
	struct server *s = w->data;
	s->housekeeping_busy = false;
	long long dropped = s->housekeeping_dropped;
	if (status == 0 && dropped != 0)
		rig_log(dropped < 0 ? "error" : "info", "housekeeping",
			json_pack("{s:I}", "expiredRows", (json_int_t)dropped));
}

/* One sweep at a time: a tick that finds the last one still running skips. */
static void on_housekeeping(uv_timer_t *t)
{
	struct server *s = t->data;
	if (s->housekeeping_busy || s->draining)
		return;
	s->housekeeping_busy = true;
	s->housekeeping_work.data = s;
	if (uv_queue_work(s->loop, &s->housekeeping_work, housekeeping_work, housekeeping_done) !=
	    0) {
		s->housekeeping_busy = false;
		housekeeping_work(&s->housekeeping_work);
		housekeeping_done(&s->housekeeping_work, 0);
	}
}

static void close_handle(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Polls until no request is in flight or the drain deadline passes. */
static void on_drain_tick(uv_timer_t *t)
{
	struct server *s = t->data;
	long in_flight = rig_http_in_flight(s->http);
	if (in_flight > 0 && uv_now(s->loop) < s->drain_deadline_ms)
		return;
	if (in_flight > 0)
		rig_log("warn", "drain timeout", json_pack("{s:i}", "inFlight", (int)in_flight));
	uv_walk(s->loop, close_handle, NULL);
}

/* With --listen HOST:0 nobody knows the port rigd picked: says where it
 * listens in words (besides the JSON log line's url), and, unless it is the
 * URL the clients try by default, the line that points them at it. Only to a
 * terminal: a log file or journal keeps getting nothing but JSON lines. */
static void announce_url(const char *url)
{
	char text[2 * RIG_CONFIG_URL_MAX + 64];
	int len = snprintf(text, sizeof text, "rigd: listening on %s\n", url);
	if (strcmp(url, RIG_CONFIG_CLIENTS_URL) != 0)
		len += snprintf(text + len, sizeof text - (size_t)len, "export RIGD_URL=%s\n", url);
	/* One write, as the JSON log lines are: request lines never cut into it. */
	ssize_t w = write(STDERR_FILENO, text, (size_t)len);
	(void)w;
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct server *s = h->data;
	if (s->draining)
		return;
	s->draining = true;
	rig_log("info", "draining",
		json_pack("{s:s, s:i}", "signal", signum == SIGTERM ? "SIGTERM" : "SIGINT",
			  "inFlight", (int)rig_http_in_flight(s->http)));
	atomic_store(&s->app.draining, true);
	rig_http_quiesce(s->http);
	s->drain_deadline_ms = uv_now(s->loop) + 1000ull * s->cfg.drain_timeout_s;
	uv_timer_start(&s->drain, on_drain_tick, 0, 20);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "token") == 0)
		return rig_token_cli(argc - 1, argv + 1);
	struct server s;
	memset(&s, 0, sizeof s);
	int rc = rig_config_parse(&s.cfg, argc, argv);
	if (rc == 1)
		return 0;
	if (rc)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	tune_malloc(s.cfg.threads);
	/* A body the whole budget cannot hold is 413, as any body past --max-body. */
	size_t budget_body = s.cfg.memory_budget_bytes / RIG_MEM_PARSE_FACTOR;
	if (s.cfg.max_body_bytes > budget_body) {
		rig_log("warn", "max body lowered to fit the memory budget",
			json_pack("{s:I, s:I}", "maxBodyBytes", (json_int_t)budget_body,
				  "memoryBudgetBytes", (json_int_t)s.cfg.memory_budget_bytes));
		s.cfg.max_body_bytes = budget_body;
	}
	/* Frame ranges evaluate on libuv's work queue: one worker per HTTP thread
	 * unless the operator chose otherwise. Read by libuv on first use. */
	char pool[16];
	snprintf(pool, sizeof pool, "%u", s.cfg.threads);
	setenv("UV_THREADPOOL_SIZE", pool, 0);

	char err[512];
	struct rig_store_options opt = {.url = s.cfg.store.url,
					.durability = s.cfg.durability,
					.pool_size = s.cfg.workers + 2};
	struct rig_store *store = rig_store_open(&opt, err, sizeof err);
	if (!store) {
		rig_log("error", "cannot open database",
			json_pack("{s:s, s:s}", "db", s.cfg.store.shown, "error", err));
		fprintf(stderr, "rigd: %s\n", err);
		return 1;
	}
	struct rig_app_limits limits = {.history_versions = s.cfg.history_versions,
					.max_body_bytes = s.cfg.max_body_bytes,
					.max_connections = s.cfg.max_connections,
					.connection_timeout_seconds = s.cfg.connection_timeout_s,
					.read_cache_bytes = (size_t)s.cfg.read_cache_mb << 20,
					.frame_workers = s.cfg.threads,
					.auth_off = s.cfg.auth_off,
					.rate_limit = s.cfg.rate_limit,
					.memory_budget_bytes = s.cfg.memory_budget_bytes};
	if (s.cfg.auth_off) {
		rig_log("warn", "authentication is off",
			json_pack("{s:s}", "detail",
				  "--auth off: every caller may do anything and names itself with"
				  " X-Rigd-Actor; for local development only"));
	} else {
		bool created = false;
		if (rig_auth_bootstrap(store, s.cfg.token_file, &created, err, sizeof err) != 0) {
			rig_log("error", "cannot create the bootstrap token",
				json_pack("{s:s}", "error", err));
			fprintf(stderr, "rigd: %s%s\n", err,
				s.cfg.token_file[0]
					? ""
					: " (give --token-file PATH or RIGD_TOKEN_FILE, or"
					  " create a token first with 'rigd token create')");
			rig_store_close(store);
			return 1;
		}
		if (created)
			rig_log("info", "bootstrap admin token written",
				json_pack("{s:s, s:s}", "path", s.cfg.token_file, "detail",
					  "send it as 'Authorization: Bearer <token>'; rigctl and"
					  " mesh-data read it from RIGD_TOKEN or this file"));
	}
	if (rig_app_init(&s.app, store, &limits) != 0) {
		rig_store_close(store);
		return 1;
	}
	s.app.log = rig_log;
	s.http = rig_http_start(&s.app, &s.cfg, err, sizeof err);
	if (!s.http) {
		rig_log("error", "cannot listen", json_pack("{s:s}", "error", err));
		fprintf(stderr, "rigd: %s\n", err);
		rig_app_release(&s.app);
		rig_store_close(store);
		return 1;
	}

	if (s.cfg.health_host[0]) {
		s.health = rig_health_start(&s.app, s.cfg.health_host, s.cfg.health_port, err,
					    sizeof err);
		if (!s.health) {
			rig_log("error", "cannot listen", json_pack("{s:s}", "error", err));
			fprintf(stderr, "rigd: %s\n", err);
			rig_http_stop(s.http);
			rig_app_release(&s.app);
			rig_store_close(store);
			return 1;
		}
		rig_log("info", "probes listening",
			json_pack("{s:s, s:i}", "host", s.cfg.health_host, "port",
				  (int)rig_health_port(s.health)));
	}

	s.loop = uv_default_loop();
	uv_signal_init(s.loop, &s.sigterm);
	uv_signal_init(s.loop, &s.sigint);
	s.sigterm.data = s.sigint.data = &s;
	uv_signal_start(&s.sigterm, on_signal, SIGTERM);
	uv_signal_start(&s.sigint, on_signal, SIGINT);
	uv_timer_init(s.loop, &s.housekeeping);
	uv_timer_init(s.loop, &s.drain);
	uv_timer_init(s.loop, &s.sweep);
	s.housekeeping.data = s.drain.data = s.sweep.data = &s;
	uv_timer_start(&s.sweep, on_sweep, 500, 500);
	uv_timer_start(&s.housekeeping, on_housekeeping, 0, 1000ull * s.cfg.housekeeping_s);

	char url[RIG_CONFIG_URL_MAX];
	rig_config_url(url, &s.cfg, rig_http_port(s.http));
	rig_log("info", "listening",
		json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:b, s:i}", "host", s.cfg.host, "port",
			  (int)rig_http_port(s.http), "url", url, "db", s.cfg.store.shown,
			  "durability",
			  s.cfg.durability == RIG_STORE_DURABILITY_FULL ? "full" : "process",
			  "threads", (int)s.cfg.threads, "tls", s.cfg.tls_cert[0] != '\0',
			  "corsOrigins", (int)s.cfg.n_cors_origins));
	if (s.cfg.port == 0 && isatty(STDERR_FILENO))
		announce_url(url);

	uv_run(s.loop, UV_RUN_DEFAULT);

	rig_health_stop(s.health);
	rig_http_stop(s.http);
	rig_app_release(&s.app);
	rig_store_close(store);
	uv_loop_close(s.loop);
	rig_log("info", "stopped", NULL);
	return 0;
}
