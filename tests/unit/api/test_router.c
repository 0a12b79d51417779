/* Which routes the server may run on the thread that read them. */
#include <criterion/criterion.h>

#include "api/http/exchange.h"

Test(route_run, writes_bounded_by_their_body)
{
	cr_assert_eq(rig_api_route_run("POST", "/v1/shots/s1/edits"), RIG_RUN_QUICK);
	cr_assert_eq(rig_api_route_run("POST", "/v1/projects"), RIG_RUN_QUICK);
	cr_assert_eq(rig_api_route_run("POST", "/v1/projects/p1/shots"), RIG_RUN_QUICK);
	cr_assert_eq(rig_api_route_run("POST", "/v1/shots/s1/locks"), RIG_RUN_QUICK);
	cr_assert_eq(rig_api_route_run("DELETE", "/v1/locks/l1"), RIG_RUN_QUICK);
	cr_assert_eq(rig_api_route_run("PUT", "/v1/plans/p1"), RIG_RUN_QUICK);
}

Test(route_run, not_reads_evaluations_stored_plans_or_unknown_paths)
{
	cr_assert_neq(rig_api_route_run("GET", "/v1/shots/s1/edits"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("GET", "/v1/shots/s1/frames/3"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("POST", "/v1/shots/s1/layers/m/map-points"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("POST", "/v1/skin/evaluate"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("POST", "/v1/plans/p1/apply"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("DELETE", "/v1/shots/s1"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("POST", "/v1/shots/s1/edits/extra"), RIG_RUN_QUICK);
	cr_assert_neq(rig_api_route_run("POST", "/v1/shots/bad id/edits"), RIG_RUN_QUICK);
}

Test(route_run, one_frame_is_the_only_light_read)
{
	cr_assert_eq(rig_api_route_run("GET", "/v1/shots/s1/frames/3"), RIG_RUN_LIGHT);
	cr_assert_eq(rig_api_route_run("GET", "/v1/shots/s1/layers/m/frames"), RIG_RUN_WORKER);
	cr_assert_eq(rig_api_route_run("GET", "/v1/shots/s1/check"), RIG_RUN_WORKER);
	cr_assert_eq(rig_api_route_run("POST", "/v1/shots/s1/frames/3"), RIG_RUN_WORKER);
	cr_assert_eq(rig_api_route_run("GET", "/v1/nowhere"), RIG_RUN_WORKER);
}

Test(route_run, a_light_read_runs_here_up_to_its_bound)
{
	struct rig_req req = {.on_io_thread = true};
	struct rig_resp resp = {0};
	cr_assert(rig_api_run_here(&req, &resp, RIG_LIGHT_WORK_MAX));
	cr_assert_not(resp.deferred);
	cr_assert_not(rig_api_run_here(&req, &resp, RIG_LIGHT_WORK_MAX + 1));
	cr_assert(resp.deferred);
	struct rig_req worker = {.on_io_thread = false};
	struct rig_resp wresp = {0};
	cr_assert(rig_api_run_here(&worker, &wresp, (size_t)-1));
	cr_assert_not(wresp.deferred);
}
