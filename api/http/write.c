/* The simple-write sequence of write.h. */
#include "api/http/write.h"

#include "api/context.h"
#include "api/http/idempotency.h"
#include "api/http/request.h"
#include "storage/db.h"

int rig_api__begin(struct rig_req *req, sqlite3 *conn)
{
	int rc = rig_db_begin_write(req->app->db, conn);
	if (rc == 0 && (rc = rig_api__idem_recheck(req, conn)) != 0) {
		/* Recorded meanwhile (or unreadable): apply nothing. */
		rig_db_exec(conn, "ROLLBACK");
		rig_db_end_write(req->app->db, conn);
	}
	return rc;
}

int rig_api__commit(struct rig_req *req, sqlite3 *conn, struct rig_resp *resp)
{
	int rc = rig_api__store_response(req, conn, resp);
	if (rc == 0) {
		int s = rig_db_exec(conn, "COMMIT");
		rc = s == SQLITE_OK ? 0 : rig_db_fail(s);
	}
	if (rc) {
		rig_db_exec(conn, "ROLLBACK");
		rig_resp_release(resp);
		rig_api__fail(resp, rc, "committing the write");
	}
	return rc;
}
