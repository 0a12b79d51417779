/* The store-URL parser of store_url.h and its scheme table: one row per URL
 * scheme, naming the backend that serves it. A new backend adds its rows here
 * and nothing else of the program changes; only the rows of the backend this
 * binary was built with (RIG_STORE_BACKEND_NAME, defined by
 * storage/CMakeLists.txt) are accepted.
 */
#include "storage/store_url.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifndef RIG_STORE_BACKEND_NAME
#error "RIG_STORE_BACKEND_NAME names the backend rig_storage is built with (storage/CMakeLists.txt)"
#endif

struct scheme {
	const char *name;        /* what precedes the first colon, compared without case */
	const char *backend;     /* the folder of storage/ that serves it */
	const char *form;        /* for messages and help: "sqlite:PATH" */
	const char *default_url; /* the backend's store when none is given (its first row's) */
	/* Fills out->address, is_file and shown from rest, what follows the
	 * colon. Returns 0, or -1 with the reason in why. */
	int (*address)(struct rig_store_url *out, const char *rest, char *why, size_t why_size);
};

/* sqlite:PATH — PATH exactly as the file system takes it (relative to the
 * working directory unless it starts with '/'), so that --db PATH is
 * sqlite:PATH whatever PATH holds. */
static int sqlite_address(struct rig_store_url *out, const char *rest, char *why, size_t why_size)
{
	if (!*rest) {
		snprintf(why, why_size, "the path is empty");
		return -1;
	}
	snprintf(out->address, sizeof out->address, "%s", rest);
	snprintf(out->shown, sizeof out->shown, "%s", rest);
	out->is_file = true;
	return 0;
}

static const struct scheme schemes[] = {
	{"sqlite", "sqlite", "sqlite:PATH", "sqlite:./rigd.db", sqlite_address},
};

#define N_SCHEMES (sizeof schemes / sizeof schemes[0])

static bool built(const struct scheme *s)
{
	return strcmp(s->backend, RIG_STORE_BACKEND_NAME) == 0;
}

const char *rig_store_url_backend(void)
{
	return RIG_STORE_BACKEND_NAME;
}

const char *rig_store_url_default(void)
{
	for (size_t i = 0; i < N_SCHEMES; i++)
		if (built(&schemes[i]))
			return schemes[i].default_url;
	return "";
}

void rig_store_url_forms(char *out, size_t size)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < N_SCHEMES && len < size; i++)
		if (built(&schemes[i]))
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "",
						schemes[i].form);
}

/* The length of url's scheme (RFC 3986: a letter, then letters, digits, '+',
 * '-' or '.', ended by ':'), or 0 when it has none. */
static size_t scheme_length(const char *url)
{
	size_t n = 0;
	if (!((url[0] >= 'a' && url[0] <= 'z') || (url[0] >= 'A' && url[0] <= 'Z')))
		return 0;
	while (url[n] &&
	       strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.", url[n]))
		n++;
	return url[n] == ':' ? n : 0;
}

int rig_store_url_parse(struct rig_store_url *out, const char *url, char *err, size_t err_size)
{
	memset(out, 0, sizeof *out);
	char forms[256], why[200];
	rig_store_url_forms(forms, sizeof forms);
	if (strlen(url) >= sizeof out->url) {
		snprintf(err, err_size, "store URL of %zu bytes is too long (at most %zu)",
			 strlen(url), sizeof out->url - 1);
		return -1;
	}
	snprintf(out->url, sizeof out->url, "%s", url);
	size_t n = scheme_length(url);
	if (n == 0) {
		snprintf(err, err_size, "store '%s' names no backend: this rigd stores in %s", url,
			 forms);
		return -1;
	}
	const struct scheme *known = NULL;
	for (size_t i = 0; i < N_SCHEMES && !known; i++)
		if (strlen(schemes[i].name) == n && !strncasecmp(schemes[i].name, url, n))
			known = &schemes[i];
	if (!known) {
		snprintf(err, err_size,
			 "store '%s': unsupported scheme '%.*s'; this rigd stores in %s", url,
			 (int)n, url, forms);
		return -1;
	}
	if (!built(known)) {
		snprintf(err, err_size,
			 "store '%s' needs a rigd built with RIG_STORE_BACKEND=%s; this one stores"
			 " in %s",
			 url, known->backend, forms);
		return -1;
	}
	if (known->address(out, url + n + 1, why, sizeof why) != 0) {
		snprintf(err, err_size, "store '%s': %s; this rigd stores in %s", url, why, forms);
		return -1;
	}
	out->backend = known->backend;
	return 0;
}
