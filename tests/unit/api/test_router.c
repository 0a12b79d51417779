/* Which routes the server may run on the thread that read them. */
#include <criterion/criterion.h>

#include "api/http/exchange.h"

Test(route_is_quick, writes_bounded_by_their_body)
{
	cr_assert(rig_api_route_is_quick("POST", "/v1/shots/s1/edits"));
	cr_assert(rig_api_route_is_quick("POST", "/v1/projects"));
	cr_assert(rig_api_route_is_quick("POST", "/v1/projects/p1/shots"));
	cr_assert(rig_api_route_is_quick("POST", "/v1/shots/s1/locks"));
	cr_assert(rig_api_route_is_quick("DELETE", "/v1/locks/l1"));
	cr_assert(rig_api_route_is_quick("PUT", "/v1/plans/p1"));
}

Test(route_is_quick, not_reads_evaluations_stored_plans_or_unknown_paths)
{
	cr_assert_not(rig_api_route_is_quick("GET", "/v1/shots/s1/edits"));
	cr_assert_not(rig_api_route_is_quick("GET", "/v1/shots/s1/frames/3"));
	cr_assert_not(rig_api_route_is_quick("POST", "/v1/shots/s1/layers/m/map-points"));
	cr_assert_not(rig_api_route_is_quick("POST", "/v1/skin/evaluate"));
	cr_assert_not(rig_api_route_is_quick("POST", "/v1/plans/p1/apply"));
	cr_assert_not(rig_api_route_is_quick("DELETE", "/v1/shots/s1"));
	cr_assert_not(rig_api_route_is_quick("POST", "/v1/shots/s1/edits/extra"));
	cr_assert_not(rig_api_route_is_quick("POST", "/v1/shots/bad id/edits"));
}
