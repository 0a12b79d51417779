/* The application's wiring (app.c): the route table and the lifecycle of the
 * context every handler shares (context.h). The server calls these.
 */
#ifndef RIG_APP_H
#define RIG_APP_H

#include "api/context.h"

/* Sets up the app over an open database; returns 0 or -1 on OOM. */
int rig_app_init(struct rig_app *app, struct rig_store *store, const struct rig_app_limits *limits);

/* Frees what rig_app_init allocated (not the database). */
void rig_app_release(struct rig_app *app);

/* Housekeeping run by the server's timer: drops idempotency keys older than
 * their 24-hour lifetime and expired locks, and compacts the history of shots
 * past --history-versions (each shot in a write transaction of its own).
 * Returns the number of rows dropped, or -1 on error. */
long long rig_app_housekeeping(struct rig_app *app);

#endif
