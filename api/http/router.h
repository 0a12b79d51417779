/* The routing table's shape and the dispatcher's entry points (exchange.h):
 * a route names its method, path pattern, handler, who may call it and the
 * query parameters it reads. The table itself is the application's wiring
 * (api/app.c).
 */
#ifndef RIG_ROUTER_H
#define RIG_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "api/http/auth.h"
#include "api/http/request.h"
#include "storage/resources.h"

/* Who may call a route (auth.c): nobody needs a token for a public route; the
 * others need the scope named, on every project (a global scope) or on the
 * project the route's first path id belongs to (struct route.owner). */
enum route_access {
	ACCESS_PUBLIC = RIG_SCOPE_NONE,
	ACCESS_READ = RIG_SCOPE_READ,
	ACCESS_EDIT = RIG_SCOPE_EDIT,
	ACCESS_ADMIN = RIG_SCOPE_ADMIN,
};

/* What the first path id of a route names, so a project-scoped token can be
 * checked against the project that owns it. */
enum route_owner {
	OWNER_NONE = -1,
	OWNER_PROJECT = RIG_RESOURCE_PROJECT,
	OWNER_SHOT = RIG_RESOURCE_SHOT,
	OWNER_PLAN = RIG_RESOURCE_PLAN,
	OWNER_LOCK = RIG_RESOURCE_LOCK,
	OWNER_RECEIPT = RIG_RESOURCE_RECEIPT,
};

struct rig_route {
	const char *method;
	const char *pattern; /* segments; "{}" captures an id into req->params */
	rig_handler handler;
	enum rig_route_run run; /* where the front may run it (exchange.h) */
	enum route_access access;
	enum route_owner owner;
	const char *query; /* the query parameters the route reads, space-separated; NULL: none */
};

/* Every route, in match order (api/app.c). */
extern const struct rig_route rig_routes[];
extern const size_t rig_n_routes;

#endif
