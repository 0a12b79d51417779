/* The list of binding kinds of binding.h, as a table: the registry, alone in
 * its file so that a test build of rigd (tests/kinds/binding_tables.c) can
 * link a table of its own, with kinds that exist only in the tests, in its
 * place. Nothing else may live here. */
#include "core/binding.h"

#define ROW(k) &rig_binding_##k,
const struct rig_binding_type *const rig_binding_types[] = {RIG_BINDING_KINDS(ROW)};
#undef ROW

const size_t rig_binding_n_types = sizeof rig_binding_types / sizeof rig_binding_types[0];
