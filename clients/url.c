/* Percent-encoding request targets for url.h. */
#include "clients/url.h"

#include <ctype.h>
#include <string.h>

void rig_url_init(struct rig_url *u)
{
	rig_bytes_init(&u->text);
	u->has_query = false;
	u->oom = false;
}

void rig_url_release(struct rig_url *u)
{
	rig_bytes_release(&u->text);
}

/* Keeps unreserved characters, and also those of extra_safe. */
static void encode(struct rig_url *u, const char *s, const char *extra_safe)
{
	for (; *s && !u->oom; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || strchr("-._~", c) || strchr(extra_safe, c))
			u->oom = rig_bytes_append(&u->text, s, 1) != 0;
		else
			u->oom = rig_bytes_printf(&u->text, "%%%02X", c) != 0;
	}
}

void rig_url_path(struct rig_url *u, const char *literal)
{
	if (!u->oom)
		u->oom = rig_bytes_puts(&u->text, literal) != 0;
}

void rig_url_segment(struct rig_url *u, const char *segment)
{
	rig_url_path(u, "/");
	/* ':' and '@' may stand in a segment (RFC 3986 pchar); ids use ':'. */
	encode(u, segment, ":@");
}

void rig_url_query(struct rig_url *u, const char *name, const char *value)
{
	if (!value)
		return;
	rig_url_path(u, u->has_query ? "&" : "?");
	u->has_query = true;
	encode(u, name, "");
	rig_url_path(u, "=");
	encode(u, value, "");
}

const char *rig_url_get(const struct rig_url *u)
{
	return u->oom ? NULL : (u->text.data ? u->text.data : "");
}
