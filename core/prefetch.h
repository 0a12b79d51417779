/* A software prefetch hint, for the core's streaming loops (skinning, mesh
 * checks): a no-op where the compiler has no builtin. Internal to core/. */
#ifndef RIG_PREFETCH_H
#define RIG_PREFETCH_H

static inline void rig_core__prefetch(const void *p)
{
#if defined(__GNUC__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

#endif
