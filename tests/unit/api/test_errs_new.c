/* rig_errs_new (core/err.c) and rig_api__errs_new (api/http/request.c): an error list
 * lives on the heap, and a handler that cannot get one answers 503 MEMORY_BUSY.
 * malloc is wrapped (-Wl,--wrap=malloc, see CMakeLists.txt) so that the one
 * allocation the size of a list can be made to fail. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/http/request.h"

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

static bool fail_list_alloc; /* test-only switch for the wrapper */

void *__wrap_malloc(size_t size)
{
	if (fail_list_alloc && size == sizeof(struct rig_errs))
		return NULL;
	return __real_malloc(size);
}

static bool has_header(const struct rig_resp *resp, const char *name, const char *value)
{
	for (size_t i = 0; i < resp->n_headers; i++)
		if (!strcmp(resp->headers[i].name, name) && !strcmp(resp->headers[i].value, value))
			return true;
	return false;
}

Test(errs_new, gives_an_empty_list_that_rig_errs_free_releases)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(errs->count, 0);
	cr_expect_eq(errs->total, 0);
	cr_expect_not(rig_errs_any(errs));
	rig_errs_add(errs, RIG_INVALID_FIELD, "field 'x' is wrong");
	cr_expect(rig_errs_any(errs));
	rig_errs_free(errs);
	rig_errs_free(NULL); /* a no-op */
}

Test(errs_new, returns_null_when_out_of_memory)
{
	fail_list_alloc = true;
	struct rig_errs *errs = rig_errs_new();
	fail_list_alloc = false;
	cr_expect_null(errs);
	rig_errs_free(errs);
}

Test(errs_new, a_handler_out_of_memory_answers_503_memory_busy)
{
	struct rig_resp resp;
	memset(&resp, 0, sizeof resp);
	fail_list_alloc = true;
	struct rig_errs *errs = rig_api__errs_new(&resp);
	fail_list_alloc = false;
	cr_assert_null(errs);
	cr_expect_eq(resp.status, 503);
	cr_assert_not_null(resp.body);
	cr_expect_str_eq(resp.content_type, "application/problem+json");
	cr_expect_not_null(strstr(resp.body, "\"code\":\"MEMORY_BUSY\""), "%s", resp.body);
	cr_expect_not_null(strstr(resp.body, "\"retryable\":true"), "%s", resp.body);
	cr_expect(has_header(&resp, "Retry-After", "1"));
	rig_resp_release(&resp);
}

Test(errs_new, a_handler_gets_a_list_and_leaves_the_response_alone)
{
	struct rig_resp resp;
	memset(&resp, 0, sizeof resp);
	struct rig_errs *errs = rig_api__errs_new(&resp);
	cr_assert_not_null(errs);
	cr_expect_eq(resp.status, 0);
	cr_expect_null(resp.body);
	rig_errs_free(errs);
	rig_resp_release(&resp);
}
