/* rigctl revert: undoes one receipt's batch through
 * POST /v1/receipts/{id}/revert and prints the new receipt (the failure, such
 * as a REVERT_CONFLICT with the later receipts, goes to stderr as every
 * refused write's does).
 */
#include <stdio.h>

#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

int rig_ctl_revert(struct rig_ctl *c)
{
	json_t *body = json_object();
	struct rig_url u;
	rig_url_init(&u);
	int rc = RIG_EXIT_FAIL;
	if (!body)
		goto out;
	if ((rc = rig_ctl_expected_version(c, body)) != RIG_EXIT_OK)
		goto out;
	if (rig_ctl_flag(c, RIG_CTL_O_FORCE))
		json_object_set_new(body, "force", json_true());
	if ((rc = rig_ctl_fence_opts(c, body)) != RIG_EXIT_OK)
		goto out;
	rig_ctl_target(&u, "receipts", c->args[0], "/revert");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	rig_url_release(&u);
	return rc;
}
