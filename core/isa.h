/* The instruction sets core's vector loops have a path for (the skinning
 * kernel, the deformed-mesh checks), and which of them this CPU runs.
 *
 * Same bits everywhere: every path performs the same IEEE operations on the
 * same operands in the same order, lane by lane, and the build turns FMA
 * contraction off (-ffp-contract=off in CMakeLists.txt), so a path changes
 * only how many lanes run at once, never a result. tests/unit/core/test_skin.c
 * and test_mesh.c run every path this CPU supports on seeded random rigs and
 * compare the bytes. An evaluator picks its path once, when it is built.
 */
#ifndef RIG_ISA_H
#define RIG_ISA_H

#include <stdbool.h>

/* 1 when this build compiles the x86-64 paths (GCC or Clang on x86-64). */
#if defined(__x86_64__) && defined(__GNUC__)
#define RIG_ISA_X86 1
#else
#define RIG_ISA_X86 0
#endif

enum rig_isa {
	RIG_ISA_PORTABLE, /* C with GNU vector pairs: SSE2 on x86-64, NEON on arm64 */
	RIG_ISA_AVX2,     /* x86-64 AVX2, without FMA */
	RIG_ISA_COUNT
};

/* Whether this build has the path and this CPU (and its OS) can run it. */
bool rig_isa_is_supported(enum rig_isa isa);

/* The fastest supported path. Reads the CPU's feature bits each call (the
 * compiler runtime's, set before main); keeps no state of its own. */
enum rig_isa rig_isa_best(void);

/* The path's name, for benchmarks and test messages ("portable", "avx2"). */
const char *rig_isa_name(enum rig_isa isa);

#endif
