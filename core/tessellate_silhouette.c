/* Silhouette mode (core/tessellate.h): not built yet. */
#include "core/tessellate.h"
#include "core/tessellate_impl.h"

int rig_tess__silhouette(struct rig_tess_mesh *out, const struct rig_tess_params *p,
			 struct rig_errs *errs)
{
	(void)out;
	(void)p;
	struct rig_err *e =
		rig_errs_add(errs, RIG_INVALID_FIELD, "mode 'silhouette' is not built yet");
	rig_strlcpy(e->pointer, "/mode", sizeof e->pointer);
	return -1;
}
