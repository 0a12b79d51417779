/* loadgen: a small closed-loop HTTP/1.1 load generator for rigd's benchmarks.
 *
 * N threads, each with one keep-alive connection, send the same request back to
 * back for a fixed time and record every latency; with --body given more than
 * once, each connection sends the bodies in turn (edits that change something
 * every time, where one body repeated would be a no-op after the first). Prints one JSON line:
 * {"requests", "seconds", "rps", "p50Ms", "p99Ms", "bytesPerResponse", "errors",
 *  "statusMismatches"}. Reads Content-Length and chunked bodies (streamed frame
 * ranges are chunked).
 *
 * usage: loadgen HOST PORT METHOD PATH [--body FILE]… [--header "Name: value"]…
 *                [--connections N] [--seconds S] [--expect STATUS]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BODIES 4

struct config {
	const char *host;
	int port;
	char *request[MAX_BODIES]; /* the full request bytes, one per body */
	size_t request_len[MAX_BODIES];
	int n_requests;
	int connections;
	double seconds;
	int expect;
};

struct worker {
	pthread_t thread;
	const struct config *cfg;
	double *latencies;
	size_t n, cap;
	size_t errors, mismatches;
	size_t body_bytes;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int connect_to(const struct config *cfg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
	inet_pton(AF_INET, cfg->host, &a.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* A buffered reader over the socket. */
struct reader {
	int fd;
	char buf[1 << 16];
	size_t off, len;
};

static int fill(struct reader *r)
{
	if (r->off < r->len)
		return 0;
	ssize_t n = recv(r->fd, r->buf, sizeof r->buf, 0);
	if (n <= 0)
		return -1;
	r->off = 0;
	r->len = (size_t)n;
	return 0;
}

static int read_line(struct reader *r, char *out, size_t max)
{
	size_t n = 0;
	for (;;) {
		if (fill(r))
			return -1;
		char c = r->buf[r->off++];
		if (c == '\n') {
			if (n && out[n - 1] == '\r')
				n--;
			out[n] = '\0';
			return 0;
		}
		if (n + 1 < max)
			out[n++] = c;
	}
}

static int skip(struct reader *r, size_t n)
{
	while (n) {
		if (fill(r))
			return -1;
		size_t take = r->len - r->off < n ? r->len - r->off : n;
		r->off += take;
		n -= take;
	}
	return 0;
}

/* Reads one response; returns its status (and body size), or -1. */
static int read_response(struct reader *r, size_t *body)
{
	char line[8192];
	if (read_line(r, line, sizeof line))
		return -1;
	int status = 0;
	if (sscanf(line, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	long long length = -1;
	bool chunked = false;
	for (;;) {
		if (read_line(r, line, sizeof line))
			return -1;
		if (!line[0])
			break;
		if (!strncasecmp(line, "Content-Length:", 15))
			length = atoll(line + 15);
		if (!strncasecmp(line, "Transfer-Encoding:", 18) && strstr(line, "chunked"))
			chunked = true;
	}
	*body = 0;
	if (chunked) {
		for (;;) {
			if (read_line(r, line, sizeof line))
				return -1;
			size_t n = strtoul(line, NULL, 16);
			if (n == 0) {
				read_line(r, line, sizeof line);
				break;
			}
			if (skip(r, n) || read_line(r, line, sizeof line))
				return -1;
			*body += n;
		}
	} else if (length > 0) {
		if (skip(r, (size_t)length))
			return -1;
		*body = (size_t)length;
	}
	return status;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	const struct config *cfg = w->cfg;
	struct reader *r = calloc(1, sizeof *r);
	r->fd = connect_to(cfg);
	double end = now() + cfg->seconds;
	for (int turn = 0; r->fd >= 0 && now() < end; turn = (turn + 1) % cfg->n_requests) {
		double t0 = now();
		const char *request = cfg->request[turn];
		size_t len = cfg->request_len[turn], sent = 0;
		while (sent < len) {
			ssize_t n = send(r->fd, request + sent, len - sent, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			sent += (size_t)n;
		}
		size_t body = 0;
		int status = sent == len ? read_response(r, &body) : -1;
		if (status < 0) {
			w->errors++;
			close(r->fd);
			r->fd = connect_to(cfg);
			r->off = r->len = 0;
			continue;
		}
		if (cfg->expect && status != cfg->expect)
			w->mismatches++;
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 4096;
			w->latencies = realloc(w->latencies, w->cap * sizeof *w->latencies);
		}
		w->latencies[w->n++] = now() - t0;
		w->body_bytes = body;
	}
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr,
			"usage: loadgen HOST PORT METHOD PATH [--body FILE]...  [--header H]... "
			"[--connections N] [--seconds S] [--expect STATUS]\n");
		return 2;
	}
	struct config cfg = {
		.host = argv[1], .port = atoi(argv[2]), .connections = 1, .seconds = 3};
	char headers[4096] = "";
	char *body[MAX_BODIES] = {NULL};
	size_t body_len[MAX_BODIES] = {0};
	int n_bodies = 0;
	for (int i = 5; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--body")) {
			FILE *f = fopen(argv[i + 1], "rb");
			if (!f || n_bodies == MAX_BODIES) {
				fprintf(stderr, "%s: %s\n", argv[i + 1],
					f ? "too many bodies" : strerror(errno));
				return 2;
			}
			fseek(f, 0, SEEK_END);
			size_t len = (size_t)ftell(f);
			fseek(f, 0, SEEK_SET);
			body[n_bodies] = malloc(len + 1);
			if (fread(body[n_bodies], 1, len, f) != len)
				return 2;
			body_len[n_bodies++] = len;
			fclose(f);
		} else if (!strcmp(argv[i], "--header")) {
			strncat(headers, argv[i + 1], sizeof headers - strlen(headers) - 3);
			strcat(headers, "\r\n");
		} else if (!strcmp(argv[i], "--connections")) {
			cfg.connections = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--seconds")) {
			cfg.seconds = atof(argv[i + 1]);
		} else if (!strcmp(argv[i], "--expect")) {
			cfg.expect = atoi(argv[i + 1]);
		}
	}
	cfg.n_requests = n_bodies ? n_bodies : 1;
	for (int k = 0; k < cfg.n_requests; k++) {
		size_t cap = strlen(argv[4]) + strlen(headers) + body_len[k] + 512;
		cfg.request[k] = malloc(cap);
		int n = snprintf(cfg.request[k], cap,
				 "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%sContent-Length: %zu\r\n"
				 "Content-Type: application/json\r\n\r\n",
				 argv[3], argv[4], cfg.host, cfg.port, headers, body_len[k]);
		if (body[k])
			memcpy(cfg.request[k] + n, body[k], body_len[k]);
		cfg.request_len[k] = (size_t)n + body_len[k];
	}

	struct worker *w = calloc((size_t)cfg.connections, sizeof *w);
	double t0 = now();
	for (int i = 0; i < cfg.connections; i++) {
		w[i].cfg = &cfg;
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	}
	size_t total = 0, errors = 0, mismatches = 0, bytes = 0;
	for (int i = 0; i < cfg.connections; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].n;
		errors += w[i].errors;
		mismatches += w[i].mismatches;
		if (w[i].body_bytes)
			bytes = w[i].body_bytes;
	}
	double elapsed = now() - t0;
	double *all = malloc((total ? total : 1) * sizeof *all);
	size_t k = 0;
	for (int i = 0; i < cfg.connections; i++) {
		memcpy(all + k, w[i].latencies, w[i].n * sizeof *all);
		k += w[i].n;
		free(w[i].latencies);
	}
	qsort(all, total, sizeof *all, cmp);
	double p50 = total ? all[total / 2] : 0,
	       p99 = total ? all[(size_t)(0.99 * (double)(total - 1))] : 0;
	printf("{\"requests\":%zu,\"seconds\":%.3f,\"rps\":%.1f,\"p50Ms\":%.3f,\"p99Ms\":%.3f,"
	       "\"bytesPerResponse\":%zu,\"errors\":%zu,\"statusMismatches\":%zu}\n",
	       total, elapsed, (double)total / elapsed, p50 * 1e3, p99 * 1e3, bytes, errors,
	       mismatches);
	free(all);
	free(w);
	for (int b = 0; b < cfg.n_requests; b++) {
		free(body[b]);
		free(cfg.request[b]);
	}
	return 0;
}
