/* The build's identity, printed the same way by rigd, rigctl and mesh-data
 * for --version: the version of the top CMakeLists.txt's project() and the
 * git commit the build was made from. Both come from a header the build
 * writes before compiling version.c (version/commit.cmake: `git describe
 * --always --dirty`, "unknown" outside a git checkout of this repository),
 * which only version.c includes, so a new commit recompiles one file.
 */
#ifndef RIG_VERSION_H
#define RIG_VERSION_H

#include <stdio.h>

/* The release version, such as "0.1.0"; a static string. */
const char *rig_version(void);

/* The commit the build was made from: an abbreviated hash such as "a066f48",
 * with "-dirty" when tracked files had uncommitted changes, or "unknown"; a
 * static string. */
const char *rig_version_commit(void);

/* Prints "<prog> <version> (commit <commit>)" and a newline on out. Returns
 * 0, or -1 when out cannot be written. */
int rig_version_print(FILE *out, const char *prog);

#endif
