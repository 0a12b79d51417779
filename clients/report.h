/* What the clients say when something goes wrong, and the exit codes that go
 * with it: a problem+json response printed readably (code, status, detail,
 * the other members, then each error with its pointer and op index), any
 * other failed response summarised, transport failures in one sentence.
 * Everything goes to the stream the caller passes (stderr in the programs).
 */
#ifndef RIG_REPORT_H
#define RIG_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "clients/http_client.h"

/* Exit codes of both clients (SPEC §9). */
enum rig_exit {
	RIG_EXIT_OK = 0,
	RIG_EXIT_FAIL = 1,  /* the server refused, or could not be reached */
	RIG_EXIT_USAGE = 2, /* the command line is wrong */
};

/* Prints a non-2xx response on f, each line prefixed by "prog: " or indented
 * under it. A problem+json body (or any JSON object with a code) prints its
 * members; other bodies print their first line. Returns RIG_EXIT_FAIL. */
int rig_report_response(FILE *f, const char *prog, const struct rig_http_resp *resp);

/* Prints error e (the i-th of a list, counted from 0) as the problem
 * printout does: "  error <i+1>: CODE at POINTER (op N): detail", then its
 * other members on an indented line. */
void rig_report_error(FILE *f, size_t i, const json_t *e);

/* Prints the transport failure kept in h->error. Returns RIG_EXIT_FAIL. */
int rig_report_transport(FILE *f, const char *prog, const struct rig_http *h);

/* Prints "prog: " and a formatted message ending the line. Returns
 * RIG_EXIT_FAIL so callers can `return rig_report_fail(...)` in one step. */
int rig_report_fail(FILE *f, const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Moves *token (malloc'd or NULL) on to next, the token a page ended with.
 * A server that answers the same token twice would page forever: that is
 * reported on f, as is running out of memory. Returns RIG_EXIT_OK or
 * RIG_EXIT_FAIL. */
int rig_report_next_token(FILE *f, const char *prog, char **token, const char *next);

/* Reports a send that did not give a 2xx answer: the transport failure when
 * rc != 0, the response otherwise, and for a 401 to a request that carried no
 * token, the places the client looked for one (h->token_searched) and how to
 * get one. Returns RIG_EXIT_OK when rc == 0 and the status is 2xx (nothing
 * printed), else RIG_EXIT_FAIL. */
int rig_report_send(FILE *f, const char *prog, int rc, const struct rig_http *h,
		    const struct rig_http_resp *resp);

#endif
