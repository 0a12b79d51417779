/* The store's address: a URL naming a backend and where its data lives —
 * "sqlite:PATH", an SQLite file (created when missing). The one parser of
 * store URLs: rigd's --store and --db, `rigd token` and rig_store_open() all
 * read an address through rig_store_url_parse(), against its table of schemes
 * (store_url.c). A binary serves the schemes of the backend it was built with
 * (RIG_STORE_BACKEND, storage/CMakeLists.txt) and refuses every other.
 */
#ifndef RIG_STORE_URL_H
#define RIG_STORE_URL_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of a store URL and of the parts below, the NUL included. */
#define RIG_STORE_URL_MAX 1100

/* A parsed store URL. */
struct rig_store_url {
	char url[RIG_STORE_URL_MAX]; /* as given */
	const char *backend;         /* the backend that serves it: "sqlite" (static) */
	/* What the backend opens: PATH for sqlite:PATH. */
	char address[RIG_STORE_URL_MAX];
	/* The address is a file path: files of the store's own (the bootstrap
	 * token, by default) may go beside it. */
	bool is_file;
	/* The address as a log line may show it: never a credential. */
	char shown[RIG_STORE_URL_MAX];
};

/* Parses url into *out (overwritten). Returns 0, or -1 with a message in err
 * that names the forms this binary accepts: no scheme, a scheme of another
 * backend or none at all ("postgres://…" in this build), an empty or
 * malformed address, a URL of RIG_STORE_URL_MAX bytes or more. */
int rig_store_url_parse(struct rig_store_url *out, const char *url, char *err, size_t err_size);

/* The backend this binary was built with (RIG_STORE_BACKEND): "sqlite".
 * Static. */
const char *rig_store_url_backend(void);

/* The store used when none is given: "sqlite:./rigd.db". Static. */
const char *rig_store_url_default(void);

/* Writes the forms this binary accepts to out (size bytes, at least 1), for
 * messages and help: "sqlite:PATH". */
void rig_store_url_forms(char *out, size_t size);

#endif
