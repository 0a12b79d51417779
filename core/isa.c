/* Which vector paths this build has and this CPU runs (core/isa.h). The paths
 * themselves live beside their portable loops: skin_kernel_x86.c and
 * mesh_check_x86.c. */
#include "core/isa.h"

bool rig_isa_is_supported(enum rig_isa isa)
{
	switch (isa) {
	case RIG_ISA_PORTABLE:
		return true;
	case RIG_ISA_AVX2:
#if RIG_ISA_X86
		/* The runtime also checks that the OS saves the YMM registers. */
		return __builtin_cpu_supports("avx2");
#else
		return false;
#endif
	case RIG_ISA_COUNT:
		break;
	}
	return false;
}

enum rig_isa rig_isa_best(void)
{
	return rig_isa_is_supported(RIG_ISA_AVX2) ? RIG_ISA_AVX2 : RIG_ISA_PORTABLE;
}

const char *rig_isa_name(enum rig_isa isa)
{
	switch (isa) {
	case RIG_ISA_PORTABLE:
		return "portable";
	case RIG_ISA_AVX2:
		return "avx2";
	case RIG_ISA_COUNT:
		break;
	}
	return "?";
}
