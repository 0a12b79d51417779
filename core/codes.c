/* Lookups over the RIG_CODES table; see codes.h. */
#include "core/codes.h"

#include <string.h>

struct code_row {
	const char *name;
	int status;
	bool retryable;
	const char *title;
	const char *rule;
	const char *fix;
};

static const struct code_row rows[RIG_CODE_COUNT] = {[RIG_OK] = {"OK", 200, false, "OK", "", ""},
#define RIG_CODE_ROW(name, status, retryable, title, rule, fix)                                    \
	[RIG_##name] = {#name, status, retryable, title, rule, fix},
						     RIG_CODES(RIG_CODE_ROW)
#undef RIG_CODE_ROW
};

static const struct code_row *row(enum rig_code code)
{
	if ((int)code < 0 || code >= RIG_CODE_COUNT)
		return &rows[RIG_INTERNAL];
	return &rows[code];
}

const char *rig_code_name(enum rig_code code)
{
	return row(code)->name;
}
int rig_code_status(enum rig_code code)
{
	return row(code)->status;
}
bool rig_code_retryable(enum rig_code code)
{
	return row(code)->retryable;
}
const char *rig_code_title(enum rig_code code)
{
	return row(code)->title;
}
const char *rig_code_rule(enum rig_code code)
{
	return row(code)->rule;
}
const char *rig_code_fix(enum rig_code code)
{
	return row(code)->fix;
}

enum rig_code rig_code_from_name(const char *name)
{
	for (int i = 1; i < RIG_CODE_COUNT; i++)
		if (strcmp(rows[i].name, name) == 0)
			return (enum rig_code)i;
	return RIG_OK;
}
