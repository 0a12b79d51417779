/* The response helpers of exchange.h. */
#include "api/http/exchange.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rig_resp_header(struct rig_resp *resp, const char *name, const char *fmt, ...)
{
	if (resp->n_headers == RIG_MAX_RESP_HEADERS)
		return;
	struct rig_resp_header *h = &resp->headers[resp->n_headers++];
	rig_strlcpy(h->name, name, sizeof h->name);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->value, sizeof h->value, fmt, ap);
	va_end(ap);
}

void rig_resp_release(struct rig_resp *resp)
{
	free(resp->body);
	if (resp->stream_free)
		resp->stream_free(resp->stream_ctx);
	memset(resp, 0, sizeof *resp);
}
