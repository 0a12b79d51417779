/* libFuzzer target over the importers (api/interchange/): arbitrary bytes as
 * the document of a shot.import, once per format that imports. The document
 * is parsed as the server parses a body, the op is decoded and applied to an
 * empty in-memory shot (no database), so the converter and every op it
 * expands to run, then the shot is validated and every rejection rendered as
 * the problem+json a client would get. Nothing may crash, leak or trip a
 * sanitizer, and every rejection must carry a stable code.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops.h"
#include "api/http/problem.h"
#include "api/interchange/interchange.h"

static void check_rejection(const struct rig_errs *errs)
{
	if (!rig_errs_any(errs))
		return;
	for (size_t i = 0; i < errs->count; i++)
		if (errs->items[i].code <= RIG_OK || errs->items[i].code >= RIG_CODE_COUNT)
			abort(); /* every rejection carries a stable code */
	struct rig_resp resp = {0};
	rig_problem_errs(&resp, errs, 0);
	if (!resp.body || resp.status < 400)
		abort();
	rig_resp_release(&resp);
}

static void import_as(json_t *doc, const char *format)
{
	struct rig_errs *errs = rig_errs_new();
	json_t *op = json_pack("{s:s, s:s, s:O, s:s}", "op", "shot.import", "format", format,
			       "document", doc, "idPrefix", "i.");
	if (!errs || !op)
		abort(); /* the fuzzer's own memory, not an input's fault */
	struct rig_op decoded;
	if (rig_op_decode(&decoded, op, 0, NULL, errs) == 0) {
		struct rig_shot_model model = {.fps = 24, .frame_end = 10};
		strcpy(model.id, "s");
		strcpy(model.project_id, "p");
		struct rig_op_ctx ctx;
		if (rig_op_ctx_init(&ctx, &model, NULL, errs) != 0)
			abort();
		if (rig_op_apply(&ctx, &decoded) == 0)
			rig_ops_validate_shot(&ctx);
		rig_op_ctx_release(&ctx);
		rig_shot_model_release(&model);
	}
	check_rejection(errs);
	rig_op_release(&decoded);
	json_decref(op);
	rig_errs_free(errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (json_is_object(doc))
		for (size_t f = 0; f < rig_interchange_n_formats; f++)
			if (rig_interchange_formats[f].import)
				import_as(doc, rig_interchange_formats[f].name);
	json_decref(doc);
	return 0;
}
