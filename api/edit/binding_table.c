/* The table of binding kinds of binding.h, generated from RIG_BINDING_KINDS:
 * the registry, alone in its file so that a test build of rigd
 * (tests/kinds/binding_tables.c) can link a table of its own in its place.
 * Nothing else may live here. */
#include "api/edit/binding.h"

#define ROW(k) &rig_binding_kind_##k,
const struct rig_binding_kind *const rig_binding_kinds[] = {RIG_BINDING_KINDS(ROW)};
#undef ROW

const size_t rig_binding_n_kinds = sizeof rig_binding_kinds / sizeof rig_binding_kinds[0];
