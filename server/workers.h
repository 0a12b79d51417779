/* A fixed pool of worker threads running request handlers, so libmicrohttpd's
 * I/O threads never block on a handler: a long edit batch (parse, apply,
 * fsync) occupies one worker while reads on every other connection go on.
 */
#ifndef RIG_WORKERS_H
#define RIG_WORKERS_H

#include <stddef.h>

struct rig_workers;

typedef void (*rig_work_fn)(void *arg);

/* Starts n threads. Returns NULL when out of resources. */
struct rig_workers *rig_workers_start(size_t n);

/* Queues fn(arg); it runs on some worker. Returns 0, or -1 when out of memory
 * or once the pool is draining (the caller must then handle the work itself). */
int rig_workers_submit(struct rig_workers *w, rig_work_fn fn, void *arg);

/* Refuses new jobs, runs every queued one to the end and joins the threads.
 * The pool stays valid (submit keeps answering -1) until rig_workers_free. */
void rig_workers_drain(struct rig_workers *w);

/* Drains (if not yet) and frees the pool; NULL is a no-op. */
void rig_workers_free(struct rig_workers *w);

#endif
