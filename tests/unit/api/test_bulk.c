/* The compact skin-array decoder: what qualifies is decoded and blanked with
 * every newline kept; anything unusual is left to jansson untouched. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/bulk.h"
#include "api/edit/ops_skin.h" /* the skin maps a weights array's joint ids */

static struct rig_bulk *extract(char *body, enum rig_bulk_mode mode)
{
	struct rig_bulk *b = NULL;
	cr_assert_eq(rig_bulk_extract(&b, body, strlen(body), mode, 0), 0);
	return b;
}

Test(bulk, decodes_the_three_arrays_of_an_op_and_blanks_them_keeping_newlines)
{
	char body[] =
		"{\"ops\":[{\"op\":\"layer.rename\"},{\"op\":\"layer.skin\",\"skin\":{"
		"\"source\":[{\"x\":1,\"y\":-2.5},\n{\"y\":1e2,\"x\":-0}],"
		"\"triangles\":[[0,1,2],[-1,1.0,4294967295]],"
		"\"weights\":[[{\"jointId\":\"a\",\"weight\":1}],[],"
		"[{\"weight\":0.5,\"jointId\":\"b\"},{\"jointId\":\"a\",\"weight\":0.5}]]}}]}";
	size_t len = strlen(body);
	struct rig_bulk *b = extract(body, RIG_BULK_EDITS);
	cr_assert_not_null(b);
	cr_assert_eq(b->n, 3);
	cr_assert_eq(strlen(body), len, "the body keeps its length");
	const char *open = strstr(body, "\"source\":[") + 10;
	size_t newlines = 0, others = 0;
	for (const char *q = open; *q != ']'; q++)
		newlines += *q == '\n', others += *q != ' ' && *q != '\n';
	cr_assert(newlines == 1 && others == 0, "elements blanked, the newline kept");
	struct rig_bulk_array *s = rig_bulk_find(b, 1, RIG_BULK_SOURCE);
	cr_assert_not_null(s);
	cr_assert_eq(s->count, 2);
	cr_assert(s->source[0] == 1 && s->source[1] == -2.5 && s->source[2] == 0 &&
		  s->source[3] == 100);
	struct rig_bulk_array *t = rig_bulk_find(b, 1, RIG_BULK_TRIANGLES);
	cr_assert_eq(t->count, 2);
	cr_assert(t->triangles[2] == 2 && t->triangles[3] == UINT32_MAX &&
		  t->triangles[4] == UINT32_MAX && t->triangles[5] == UINT32_MAX);
	struct rig_bulk_array *w = rig_bulk_find(b, 1, RIG_BULK_WEIGHTS);
	cr_assert_eq(w->count, 3);
	cr_assert_eq(w->n_ids, 2);
	cr_assert(w->offsets[0] == 0 && w->offsets[1] == 1 && w->offsets[2] == 1 &&
		  w->offsets[3] == 3);
	cr_assert_str_eq(w->ids[w->influences[1].joint], "b");
	cr_assert_null(rig_bulk_find(b, 0, RIG_BULK_SOURCE));
	rig_bulk_free(b);
}

Test(bulk, leaves_arrays_with_anything_unusual_untouched)
{
	const char *cases[] = {
		"{\"source\":[{\"x\":1,\"y\":2,\"z\":3}]}",              /* extra key */
		"{\"source\":[{\"x\":1,\"x\":2}]}",                      /* repeated key */
		"{\"source\":[{\"\\u0078\":1,\"y\":2}]}",                /* escaped key */
		"{\"source\":[{\"x\":01,\"y\":2}]}",                     /* leading zero */
		"{\"source\":[{\"x\":1e999,\"y\":2}]}",                  /* overflowing real */
		"{\"source\":[{\"x\":1234567890123456789,\"y\":2}]}",    /* 19 digits */
		"{\"source\":[{\"x\":1,\"y\":2},]}",                     /* trailing comma */
		"{\"triangles\":[[0,1]]}",                               /* two indices */
		"{\"triangles\":[[0,1,\"2\"]]}",                         /* a string */
		"{\"weights\":[[{\"jointId\":\"a\\n\",\"weight\":1}]]}", /* escape in an id */
		"{\"weights\":[[{\"jointId\":\"a\",\"weight\":1,\"x\":0}]]}",
		"{\"weights\":[[1,2,3,4,5,6,7,8,9]]}",
		"{\"weights\":[[",                                 /* truncated: never read */
		"{\"weights\":[[{\"jointId\":\"a\",\"weight\":1}", /* past the end */
		"{\"source\":[{\"x\":1",
		"{\"triangles\":[[0,1,",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *body = strdup(cases[i]);
		struct rig_bulk *b = extract(body, RIG_BULK_SKIN);
		cr_assert_null(b, "case %zu decoded", i);
		cr_assert_str_eq(body, cases[i], "case %zu was changed", i);
		free(body);
	}
}

Test(bulk, only_follows_the_paths_of_its_mode)
{
	char edits[] = "{\"source\":[{\"x\":1,\"y\":2}],\"x\":{\"ops\":[{\"skin\":{\"source\":"
		       "[{\"x\":1,\"y\":2}]}}]}}";
	cr_assert_null(extract(edits, RIG_BULK_EDITS));
	char skin[] = "{\"ops\":[{\"skin\":{\"source\":[{\"x\":1,\"y\":2}]}}]}";
	cr_assert_null(extract(skin, RIG_BULK_SKIN));
}

/* An array is taken only by the op that reads it there, whichever member
 * comes first; under any other op its bytes stay for that op's decoder. */
Test(bulk, keeps_an_array_only_for_the_op_that_takes_it)
{
	char body[] = "{\"ops\":["
		      "{\"vertices\":[{\"x\":1,\"y\":2}],\"op\":\"layer.mesh.key.put\"},"
		      "{\"op\":\"layer.skin.weights.put\",\"vertices\":[{\"x\":3,\"y\":4}]},"
		      "{\"op\":\"layer.mesh\",\"skin\":{\"source\":[{\"x\":5,\"y\":6}]},"
		      "\"mesh\":{\"source\":[{\"x\":7,\"y\":8}],\"weights\":[[]]}},"
		      "{\"skin\":{\"source\":[{\"x\":9,\"y\":1}]},\"op\":\"layer.sk\\u0069n\"}]}";
	struct rig_bulk *b = extract(body, RIG_BULK_EDITS);
	cr_assert_not_null(b);
	cr_assert_eq(b->n, 2);
	struct rig_bulk_array *key = rig_bulk_find(b, 0, RIG_BULK_SOURCE);
	cr_assert(key && key->count == 1 && key->source[1] == 2);
	cr_assert_null(rig_bulk_find(b, 1, RIG_BULK_SOURCE), "weights.put reads its own vertices");
	struct rig_bulk_array *mesh = rig_bulk_find(b, 2, RIG_BULK_SOURCE);
	cr_assert(mesh && mesh->source[0] == 7, "layer.mesh takes mesh.source, not skin.source");
	cr_assert_null(rig_bulk_find(b, 2, RIG_BULK_WEIGHTS));
	cr_assert_null(rig_bulk_find(b, 3, RIG_BULK_SOURCE),
		       "an escaped op name is left to jansson");
	cr_assert_not_null(strstr(body, "[{\"x\":3,\"y\":4}]"));
	cr_assert_not_null(strstr(body, "[{\"x\":5,\"y\":6}]"));
	cr_assert_not_null(strstr(body, "[[]]"));
	cr_assert_not_null(strstr(body, "[{\"x\":9,\"y\":1}]"));
	cr_assert_null(strstr(body, "\"x\":1,"), "the key's vertices are blanked");
	cr_assert_null(strstr(body, "\"x\":7"), "the mesh's source is blanked");
	rig_bulk_free(b);
}

Test(bulk, maps_joint_ids_and_keeps_unknown_ones_for_errors)
{
	char body[] = "{\"weights\":[[{\"jointId\":\"b\",\"weight\":1}],"
		      "[{\"jointId\":\"nope\",\"weight\":1}]]}";
	struct rig_bulk *b = extract(body, RIG_BULK_SKIN);
	struct rig_bulk_array *w = rig_bulk_find(b, RIG_NO_INDEX, RIG_BULK_WEIGHTS);
	struct rig_skin_joint joints[2];
	memset(joints, 0, sizeof joints);
	strcpy(joints[0].id, "a");
	strcpy(joints[1].id, "b");
	struct rig_skin_def def = {.joints = joints, .n_joints = 2};
	cr_assert_eq(rig_op__skin_map_joints(w, &def), 0);
	cr_assert_eq(w->influences[0].joint, 1);
	cr_assert_eq(w->influences[1].joint, RIG_JOINT_UNKNOWN);
	def.weight_offsets = w->offsets;
	def.influences = w->influences;
	def.n_weight_lists = w->count;
	cr_assert_str_eq(rig_op__skin_joint_id(w, &def, 0, 0), "b");
	cr_assert_str_eq(rig_op__skin_joint_id(w, &def, 1, 0), "nope");
	cr_assert_null(rig_op__skin_joint_id(w, &def, 1, 1));
	rig_bulk_free(b);
}
