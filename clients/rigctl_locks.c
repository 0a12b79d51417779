/* rigctl lock: layer locks of a shot (SPEC §6): acquire, list, renew and
 * release. A lock prints with its id and fencing token first, the two values
 * an owner passes to rigctl edit or plan apply (--lock-id, --fencing-token).
 */
#include <stdio.h>
#include <string.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/table.h"
#include "clients/url.h"

/* Appends the ids of layers (an array of strings) to b, comma-separated. */
static void join_layers(struct rig_bytes *b, const json_t *layers)
{
	for (size_t i = 0; i < json_array_size(layers); i++) {
		const char *id = json_string_value(json_array_get(layers, i));
		rig_bytes_printf(b, "%s%s", i ? ", " : "", id ? id : "?");
	}
}

/* Prints a lock (table format). */
static int print_lock(const json_t *l)
{
	const char *id = json_string_value(json_object_get(l, "lockId"));
	const char *shot = json_string_value(json_object_get(l, "shotId"));
	const char *owner = json_string_value(json_object_get(l, "owner"));
	const char *expires = json_string_value(json_object_get(l, "expiresAt"));
	struct rig_bytes layers;
	rig_bytes_init(&layers);
	join_layers(&layers, json_object_get(l, "layerIds"));
	printf("lock     %s\n", id ? id : "?");
	printf("fencing  %" JSON_INTEGER_FORMAT "\n",
	       json_integer_value(json_object_get(l, "fencingToken")));
	printf("shot     %s\n", shot ? shot : "?");
	printf("owner    %s\n", owner ? owner : "?");
	printf("layers   %s\n", layers.data ? layers.data : "-");
	printf("expires  %s (ttl %" JSON_INTEGER_FORMAT " s)\n", expires ? expires : "?",
	       json_integer_value(json_object_get(l, "ttlSeconds")));
	rig_bytes_release(&layers);
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
			      : RIG_EXIT_OK;
}

static void lock_cells(struct rig_table *t, json_t *l)
{
	struct rig_bytes layers;
	rig_bytes_init(&layers);
	join_layers(&layers, json_object_get(l, "layerIds"));
	rig_ctl_cell(t, l, "lockId");
	rig_ctl_cell(t, l, "fencingToken");
	rig_ctl_cell(t, l, "owner");
	rig_ctl_cell(t, l, "expiresAt");
	rig_ctl_cell(t, l, "ttlSeconds");
	rig_table_cell(t, layers.data ? layers.data : "-");
	rig_bytes_release(&layers);
}

static const struct rig_ctl_list_view lock_view = {
	"locks",
	6,
	{"lock", "fencing", "owner", "expires", "ttl", "layers"},
	{0, 1, 0, 0, 1, 0},
	lock_cells,
	NULL};

/* Sends method to target with body (may be NULL) and prints the lock that
 * comes back. */
static int call_lock(struct rig_ctl *c, const char *method, const char *target, const json_t *body)
{
	json_t *lock = NULL;
	int rc = rig_ctl_call(c, method, target, body, rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY),
			      NULL, &lock);
	if (rc == RIG_EXIT_OK)
		rc = c->format == RIG_CTL_TABLE ? print_lock(lock) : rig_ctl_print_json(lock);
	json_decref(lock);
	return rc;
}

/* The body of acquire ({layerIds, ttlSeconds?}) or renew ({ttlSeconds}, or
 * NULL to renew for the same lease); NULL for the other verbs. Returns an exit
 * code; *out is a new reference or NULL. */
static int lock_body(json_t **out, struct rig_ctl *c)
{
	long long ttl = rig_ctl_int(c, RIG_CTL_O_TTL); /* 0: not given */
	*out = NULL;
	if (c->cmd != RIG_CTL_LOCK_ACQUIRE && !(c->cmd == RIG_CTL_LOCK_RENEW && ttl))
		return RIG_EXIT_OK;
	json_t *body = json_object(), *ids = json_array();
	if (!body || !ids)
		goto out_oom;
	if (c->cmd == RIG_CTL_LOCK_ACQUIRE) {
		for (size_t i = 0; i < c->n_args; i++) {
			json_t *id = json_string(c->args[i]);
			if (!id) {
				json_decref(ids);
				json_decref(body);
				return rig_ctl_usage("layer id '%s' is not valid UTF-8",
						     c->args[i]);
			}
			if (json_array_append_new(ids, id) != 0)
				goto out_oom;
		}
		if (json_object_set(body, "layerIds", ids) != 0)
			goto out_oom;
	}
	if (ttl && json_object_set_new(body, "ttlSeconds", json_integer(ttl)) != 0)
		goto out_oom;
	json_decref(ids);
	*out = body;
	return RIG_EXIT_OK;
out_oom:
	json_decref(ids);
	json_decref(body);
	return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
}

int rig_ctl_locks(struct rig_ctl *c)
{
	const char *shot = rig_ctl_opt(c, RIG_CTL_O_SHOT);
	struct rig_url u;
	json_t *body = NULL, *got = NULL;
	int rc = RIG_EXIT_OK;
	if ((rc = lock_body(&body, c)) != RIG_EXIT_OK)
		return rc;
	rig_url_init(&u);
	switch (c->cmd) {
	case RIG_CTL_LOCK_ACQUIRE:
		rc = call_lock(c, "POST", rig_ctl_target(&u, "shots", shot, "/locks"), body);
		break;
	case RIG_CTL_LOCK_RENEW:
		rc = call_lock(c, "POST", rig_ctl_target(&u, "locks", c->args[0], "/renew"), body);
		break;
	case RIG_CTL_LOCK_RELEASE:
		rc = rig_ctl_call(c, "DELETE", rig_ctl_target(&u, "locks", c->args[0], NULL), NULL,
				  rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY), NULL, &got);
		if (rc == RIG_EXIT_OK)
			rc = rig_ctl_print_object(c, got);
		break;
	default: /* RIG_CTL_LOCK_LIST: not paged; one answer */
		rc = rig_ctl_list_pages(c, rig_ctl_target(&u, "shots", shot, "/locks"), &lock_view,
					true);
		break;
	}
	json_decref(got);
	json_decref(body);
	rig_url_release(&u);
	return rc;
}
