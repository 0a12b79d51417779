/* The registry of rigd-testkinds: the binding kind tables of core/binding.h
 * and api/edit/binding.h with the kinds that exist only in the tests after the
 * production ones. Linked in place of core/binding_table.c and
 * api/edit/binding_table.c (an object named on the link line wins over the
 * library member that defines the same tables, which is then never pulled).
 */
#include "api/edit/binding.h"
#include "core/binding.h"
#include "tests/kinds/offset.h"

#define TEST_KINDS(X) RIG_BINDING_KINDS(X) X(offset)

#define TYPE_ROW(k) &rig_binding_##k,
const struct rig_binding_type *const rig_binding_types[] = {TEST_KINDS(TYPE_ROW)};
#undef TYPE_ROW
const size_t rig_binding_n_types = sizeof rig_binding_types / sizeof rig_binding_types[0];

#define KIND_ROW(k) &rig_binding_kind_##k,
const struct rig_binding_kind *const rig_binding_kinds[] = {TEST_KINDS(KIND_ROW)};
#undef KIND_ROW
const size_t rig_binding_n_kinds = sizeof rig_binding_kinds / sizeof rig_binding_kinds[0];
