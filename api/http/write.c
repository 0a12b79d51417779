/* The simple-write sequence of write.h. */
#include "api/http/write.h"

#include "api/context.h"
#include "api/http/idempotency.h"
#include "api/http/request.h"
#include "storage/store.h"

int rig_api__begin(struct rig_req *req, struct rig_tx *conn)
{
	int rc = rig_tx_begin_write(conn);
	if (rc == 0 && (rc = rig_api__idem_recheck(req, conn)) != 0) {
		/* Recorded meanwhile (or unreadable): apply nothing. */
		rig_tx_rollback(conn);
		rig_tx_end_write(conn);
	}
	return rc;
}

int rig_api__commit(struct rig_req *req, struct rig_tx *conn, struct rig_resp *resp)
{
	int rc = rig_api__store_response(req, conn, resp);
	if (rc == 0) {
		rc = rig_tx_commit(conn);
	}
	if (rc) {
		rig_tx_rollback(conn);
		rig_resp_release(resp);
		rig_api__fail(resp, rc, "committing the write");
	}
	return rc;
}
