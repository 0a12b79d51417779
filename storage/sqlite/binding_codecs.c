/* The codec table of binding_codec.h. */
#include <stddef.h>

#include "storage/sqlite/binding_codec.h"

#define ROW(k) &rig_binding_codec_##k,
#define GENERIC &rig_binding_codec_generic
const struct rig_binding_codec *const rig_binding_codecs[] = {RIG_BINDING_OWN_CODECS(ROW) GENERIC};
#undef GENERIC
#undef ROW

const size_t rig_binding_n_codecs = sizeof rig_binding_codecs / sizeof rig_binding_codecs[0];

const struct rig_binding_codec *rig_binding_codec_of(const struct rig_binding_type *type)
{
	if (!type)
		return NULL;
	for (size_t i = 0; i < rig_binding_n_codecs; i++)
		if (rig_binding_codecs[i]->type == type)
			return rig_binding_codecs[i];
	return type->encode && type->decode ? &rig_binding_codec_generic : NULL;
}
