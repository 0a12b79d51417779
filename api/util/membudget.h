/* The process-wide memory budget (issue 11): a byte count that every request
 * body and every open frame-range stream is admitted against, so that a burst
 * of large requests is refused with 503 MEMORY_BUSY instead of driving the
 * process out of memory.
 *
 * A request reserves its Content-Length times RIG_MEM_PARSE_FACTOR when its
 * headers arrive (the most a body that takes the compact parse path needs, see
 * bulk.h) and gives it back when it completes. While the request's body is
 * parsed, jansson's allocations are charged to that reservation and, past it,
 * drawn from what the budget has free; an allocation the budget cannot cover
 * fails, and the parse reports 503, not a client error.
 *
 * The budget also asks for memory to be given back to the kernel after a spike
 * (malloc_trim), from the server's loop rather than a request's thread.
 * Not here: the body limit itself (http.c) and the read cache's own cap.
 */
#ifndef RIG_MEMBUDGET_H
#define RIG_MEMBUDGET_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes reserved per body byte at admission. Measured: one 64 MiB layer.skin
 * batch peaks near 4x its body (bench/memory_batch.py); 8 leaves room for the
 * stored blobs and the response. */
#define RIG_MEM_PARSE_FACTOR 8
/* A request whose body reached this many bytes asks for a trim when it ends. */
#define RIG_MEM_TRIM_AFTER_BYTES ((size_t)8 << 20)

struct rig_membudget;

/* What one request holds: its reservation and what its parse has charged. */
struct rig_mem_claim {
	size_t reserved; /* bytes taken from the budget; given back by rig_membudget_settle */
	size_t charged;  /* bytes jansson holds from this claim during a parse */
};

/* Returns a new budget of limit_bytes (0: unlimited); free with
 * rig_membudget_free. NULL when out of memory. Installs jansson's accounting
 * allocator (json_set_alloc_funcs), so call it before other threads use jansson. */
struct rig_membudget *rig_membudget_new(size_t limit_bytes);

/* Frees the budget; a no-op on NULL. */
void rig_membudget_free(struct rig_membudget *b);

/* The budget's size in bytes (0: unlimited), and the bytes reserved now. */
size_t rig_membudget_limit(const struct rig_membudget *b);
size_t rig_membudget_used(const struct rig_membudget *b);

/* Adds bytes to claim's reservation when the budget has them free. Returns
 * true when reserved, false (nothing changed) when it has not. A NULL budget
 * admits everything. */
bool rig_membudget_reserve(struct rig_membudget *b, struct rig_mem_claim *claim, size_t bytes);

/* Gives claim's whole reservation back and zeroes the claim. */
void rig_membudget_settle(struct rig_membudget *b, struct rig_mem_claim *claim);

/* Charges jansson's allocations on this thread to claim until
 * rig_membudget_parse_end; claim must outlive the parse. Past the claim's
 * reservation each allocation draws from the budget's free bytes (one parse
 * holds at most half the budget, or its admission reservation if larger), and
 * fails when there are none. rig_membudget_parse_end says whether any allocation
 * failed (over the budget or in malloc itself): jansson does not always report
 * that itself (a failed append returns NULL with the error unset). After a
 * failed parse the bytes it drew past the claim's reservation go back at once. */
void rig_membudget_parse_begin(struct rig_membudget *b, struct rig_mem_claim *claim);
bool rig_membudget_parse_end(void);

/* Notes that a large request just released its memory: the next
 * rig_membudget_trim gives free heap back to the kernel. */
void rig_membudget_want_trim(struct rig_membudget *b);

/* Runs malloc_trim(0) when a trim was asked for since the last call; called
 * from the server's loop timer, off every request's path. Returns true when it
 * trimmed. */
bool rig_membudget_trim(struct rig_membudget *b);

/* The default budget: half the physical memory, between 256 MiB and 8 GiB. */
size_t rig_membudget_default_bytes(void);

#endif
