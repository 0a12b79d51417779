/* static_server: the HTTP baseline for frame benchmarks. The same
 * libmicrohttpd configuration as rigd (internal thread pool sized to the cores,
 * epoll, response queued on the second access call so connections stay
 * keep-alive) serving a fixed body of a given size. Prints the port it bound.
 *
 * usage: static_server BODY_BYTES [THREADS]   (stops on SIGTERM/SIGINT)
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct body {
	char *data;
	size_t len;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	const struct body *b = cls;
	if (!*con_cls) {
		*con_cls = conn;
		return MHD_YES;
	}
	struct MHD_Response *r =
		MHD_create_response_from_buffer(b->len, b->data, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, "Content-Type", "application/octet-stream");
	enum MHD_Result ok = MHD_queue_response(conn, 200, r);
	MHD_destroy_response(r);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct body b = {.len = (size_t)atoll(argv[1])};
	b.data = malloc(b.len ? b.len : 1);
	memset(b.data, 'x', b.len);
	unsigned threads =
		argc > 2 ? (unsigned)atoi(argv[2]) : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, on_request, &b,
		MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, /* as rigd (server/http.c) */
		MHD_OPTION_END);
	if (!d)
		return 1;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("%u\n", info->port);
	fflush(stdout);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int sig;
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	free(b.data);
	return 0;
}
