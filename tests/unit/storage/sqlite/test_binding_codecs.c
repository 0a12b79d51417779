/* The SQLite backend's codec table (storage/sqlite/binding_codecs.c): every
 * binding kind has exactly one complete codec, its own or the generic one. */
#include <criterion/criterion.h>

#include "core/skin.h"
#include "storage/sqlite/binding_codec.h"

Test(binding_codecs, every_kind_has_one_complete_codec)
{
	for (size_t i = 0; i < rig_binding_n_types; i++) {
		const struct rig_binding_codec *c = rig_binding_codec_of(rig_binding_types[i]);
		cr_assert_not_null(c, "kind '%s' has no codec", rig_binding_types[i]->name);
		cr_assert(c == &rig_binding_codec_generic || c->type == rig_binding_types[i]);
	}
	for (size_t i = 0; i < rig_binding_n_codecs; i++) {
		const struct rig_binding_codec *c = rig_binding_codecs[i];
		cr_assert(c->load && c->read && c->erase && c->write);
	}
	cr_assert_eq(rig_binding_codecs[rig_binding_n_codecs - 1], &rig_binding_codec_generic);
	cr_assert_eq(rig_binding_codec_of(&rig_binding_skin), &rig_binding_codec_skin);
	cr_assert_null(rig_binding_codec_of(NULL));
}
