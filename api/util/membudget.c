/* The memory budget of membudget.h: an atomic byte count, jansson's
 * accounting allocator and the trim request.
 *
 * jansson takes one process-wide allocator (json_set_alloc_funcs) with no
 * context argument, so the claim being charged travels in a thread-local
 * pointer set only between rig_membudget_parse_begin and _end; everywhere else
 * the allocator is plain malloc/free. This is the one piece of hidden state in
 * the API, and it is forced by jansson's interface.
 */
#include "api/util/membudget.h"

#include <jansson.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* Past its reservation a parse draws from the budget in steps this large. */
#define PARSE_STEP ((size_t)1 << 20)

struct rig_membudget {
	size_t limit; /* 0: unlimited */
	atomic_size_t used;
	atomic_bool trim_wanted;
};

struct parse_ctx {
	size_t base; /* the claim's reservation when the parse began */
	bool active;
	bool failed; /* an allocation returned NULL since parse_begin */
	struct rig_membudget *budget;
	struct rig_mem_claim *claim;
};

static _Thread_local struct parse_ctx parsing;

static size_t chunk_bytes(void *p)
{
	return malloc_usable_size(p) + sizeof(size_t); /* glibc's chunk header */
}

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);
	struct rig_mem_claim *c = parsing.claim;
	if (!p && parsing.active)
		parsing.failed = true;
	if (!p || !c)
		return p;
	size_t bytes = chunk_bytes(p);
	if (c->charged + bytes > c->reserved) {
		size_t need = c->charged + bytes - c->reserved;
		/* One parse may hold at most half the budget beyond its own reservation
		 * at admission, so a single pathological body cannot starve the rest. */
		size_t cap = parsing.budget->limit / 2;
		if (cap < parsing.base)
			cap = parsing.base;
		bool over = parsing.budget->limit && c->reserved + need > cap;
		if (over || (!rig_membudget_reserve(parsing.budget, c,
						    need > PARSE_STEP ? need : PARSE_STEP) &&
			     !rig_membudget_reserve(parsing.budget, c, need))) {
			free(p);
			parsing.failed = true;
			return NULL;
		}
	}
	c->charged += bytes;
	return p;
}

static void counting_free(void *p)
{
	struct rig_mem_claim *c = parsing.claim;
	if (p && c) {
		size_t bytes = chunk_bytes(p);
		c->charged = c->charged > bytes ? c->charged - bytes : 0;
	}
	free(p);
}

struct rig_membudget *rig_membudget_new(size_t limit_bytes)
{
	struct rig_membudget *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->limit = limit_bytes;
	atomic_init(&b->used, 0);
	atomic_init(&b->trim_wanted, false);
	json_set_alloc_funcs(counting_malloc, counting_free);
	return b;
}

void rig_membudget_free(struct rig_membudget *b)
{
	free(b);
}

size_t rig_membudget_limit(const struct rig_membudget *b)
{
	return b ? b->limit : 0;
}

size_t rig_membudget_used(const struct rig_membudget *b)
{
	return b ? atomic_load(&((struct rig_membudget *)b)->used) : 0;
}

bool rig_membudget_reserve(struct rig_membudget *b, struct rig_mem_claim *claim, size_t bytes)
{
	if (!b || bytes == 0)
		return true;
	size_t used = atomic_load(&b->used);
	do {
		if (b->limit && (bytes > b->limit || used > b->limit - bytes))
			return false;
	} while (!atomic_compare_exchange_weak(&b->used, &used, used + bytes));
	claim->reserved += bytes;
	return true;
}

void rig_membudget_settle(struct rig_membudget *b, struct rig_mem_claim *claim)
{
	if (b && claim->reserved)
		atomic_fetch_sub(&b->used, claim->reserved);
	claim->reserved = 0;
	claim->charged = 0;
}

void rig_membudget_parse_begin(struct rig_membudget *b, struct rig_mem_claim *claim)
{
	parsing.active = true;
	parsing.failed = false;
	parsing.budget = b;
	parsing.claim = b ? claim : NULL;
	if (claim) {
		claim->charged = 0;
		parsing.base = claim->reserved;
	}
}

bool rig_membudget_parse_end(void)
{
	bool failed = parsing.failed;
	struct rig_mem_claim *c = parsing.claim;
	if (failed && c && c->reserved > parsing.base) {
		/* jansson freed its partial tree: what the parse drew goes back now,
		 * not when the request's connection is torn down. */
		atomic_fetch_sub(&parsing.budget->used, c->reserved - parsing.base);
		c->reserved = parsing.base;
	}
	parsing = (struct parse_ctx){0};
	return failed;
}

void rig_membudget_want_trim(struct rig_membudget *b)
{
	if (b)
		atomic_store(&b->trim_wanted, true);
}

bool rig_membudget_trim(struct rig_membudget *b)
{
	if (!b || !atomic_exchange(&b->trim_wanted, false))
		return false;
	malloc_trim(0);
	return true;
}

size_t rig_membudget_default_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t half = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : 0;
	uint64_t lo = (uint64_t)256 << 20, hi = (uint64_t)8 << 30;
	if (half < lo)
		half = lo;
	if (half > hi)
		half = hi;
	return (size_t)half;
}
