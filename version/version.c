/* The build identity of version.h. version/rig_commit.h is generated in the
 * build folder (version/commit.cmake), never in the source tree. */
#include "version/version.h"

#include "version/rig_commit.h"

const char *rig_version(void)
{
	return RIG_BUILD_VERSION;
}

const char *rig_version_commit(void)
{
	return RIG_BUILD_COMMIT;
}

int rig_version_print(FILE *out, const char *prog)
{
	if (fprintf(out, "%s %s (commit %s)\n", prog, RIG_BUILD_VERSION, RIG_BUILD_COMMIT) < 0 ||
	    fflush(out) != 0)
		return -1;
	return 0;
}
