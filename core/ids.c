/* The id rule of ids.h. */
#include "core/ids.h"

#include <string.h>

#include "core/err.h"

bool rig_id_is_valid_n(const char *s, size_t len)
{
	if (len < 1 || len > RIG_ID_MAX)
		return false;
	/* "." and ".." are path segments HTTP clients normalise away (RFC 3986
	 * §5.2.4), so an object named so could never be addressed again. */
	if (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' || c == '-';
		if (!ok)
			return false;
	}
	return true;
}

bool rig_id_is_valid(const char *s)
{
	return rig_id_is_valid_n(s, strlen(s));
}
