/* Syntax checks and helpers of http_syntax.h. */
#include "server/http_syntax.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char single_spaces[] =
	"the request line must be method, target and version separated by single spaces";

static bool is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* libmicrohttpd 0.9.75 parses each header line in place: the name ends where
 * the colon was (now a NUL) and the value starts after the colon's optional
 * whitespace. An obs-fold line (one starting with SP or HTAB) is appended to
 * the previous header's name in a new allocation, so that name no longer sits
 * right before its value. */
static bool header_was_folded(const char *key, size_t key_len, const char *value)
{
	uintptr_t k = (uintptr_t)key + key_len, v = (uintptr_t)value;
	if (!value || v <= k || v - k > MAX_HEADER_BYTES)
		return true;
	for (const char *p = key + key_len + 1; p < value; p++)
		if (*p != ' ' && *p != '\t')
			return true;
	return false;
}

/* libmicrohttpd 0.9.75 measures a value with strlen, so a NUL sent inside it
 * cuts the value short without a trace in its length; what followed the NUL
 * is still in the buffer, before the line's end. A line ends in one or two
 * NULs (its LF, or CR LF, overwritten) and the next header's name starts
 * right after them; the last line is followed by the blank line (one or two
 * more) and the header block ends there. A value followed by anything else
 * held a NUL. */
static void check_value_end(struct rig_header_census *c, const char *next, size_t most)
{
	if (!c->value_end || c->nul_in_value)
		return;
	uintptr_t from = (uintptr_t)c->value_end, to = (uintptr_t)next;
	bool clean = to > from && to - from <= most;
	for (const char *p = c->value_end; clean && (uintptr_t)p < to; p++)
		clean = *p == '\0';
	if (!clean)
		c->nul_in_value = c->value_key;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
				    size_t key_len, const char *value, size_t value_len)
{
	struct rig_header_census *c = cls;
	check_value_end(c, key, 2);
	c->value_key = key;
	c->value_end = value ? value + value_len : NULL;
	size_t len = key_len + value_len;
	c->fields++;
	if (len > c->longest)
		c->longest = len;
	for (size_t i = 0; i < key_len && !c->bad_name; i++)
		if (!is_tchar((unsigned char)key[i]))
			c->bad_name = key;
	if (!key_len && !c->bad_name)
		c->bad_name = key;
	if (!c->folded && header_was_folded(key, key_len, value))
		c->folded = key;
	if (!strcasecmp(key, "Content-Length"))
		c->content_lengths++;
	if (!strcasecmp(key, "Host"))
		c->has_host = true;
	if (!strcasecmp(key, "Authorization"))
		c->authorizations++;
	if (!strcasecmp(key, "Transfer-Encoding")) {
		c->transfer_encodings++;
		c->te_chunked = value && !strcasecmp(value, "chunked");
	}
	return MHD_YES;
}

/* libmicrohttpd cuts the request line "METHOD SP target SP version" into
 * NUL-terminated pieces in place: the method ends at the first space, the
 * target starts after any further spaces and ends at the last space before
 * the version. A NUL sent inside the method or the target makes a piece end
 * early, so it no longer reaches the next one; extra spaces before the target
 * leave a gap; extra spaces after it stay in the target (rig_http__target_problem
 * sees those, before the target is decoded in place). */
const char *rig_http__request_line_problem(const char *method, const char *version,
					   uintptr_t raw_uri, size_t raw_uri_len)
{
	size_t method_len = strlen(method);
	uintptr_t m_end = (uintptr_t)method + method_len;
	const char *nul = "the request line contains a NUL byte";
	if (raw_uri <= m_end || raw_uri - m_end > 64)
		return nul;
	for (const char *p = method + method_len + 1; (uintptr_t)p < raw_uri; p++)
		if (*p != ' ')
			return nul;
	if (version && *version && (uintptr_t)version != raw_uri + raw_uri_len + 1)
		return nul;
	if (raw_uri - m_end != 1)
		return single_spaces;
	for (size_t i = 0; i < method_len; i++)
		if (!is_tchar((unsigned char)method[i]))
			return "the method is not a token";
	return NULL;
}

const char *rig_http__target_problem(const char *uri)
{
	for (const unsigned char *p = (const unsigned char *)uri; *p; p++)
		if (*p == ' ')
			return single_spaces;
		else if (*p < ' ' || *p == 0x7f)
			return "the request target contains a control character";
	return NULL;
}

/* Whether every charset parameter among a media type's parameters (the text
 * after type/subtype) names UTF-8, compared case-insensitively, quoted or not.
 * RFC 9110 §8.3.1: parameters are `; name=value`, the value a token or a
 * quoted-string (whose `;` separates nothing); other text is skipped. */
static bool charsets_are_utf8(const char *p)
{
	while ((p = strchr(p, ';'))) {
		p++;
		p += strspn(p, " \t");
		size_t name_len = strcspn(p, "=; \t");
		bool is_charset = name_len == 7 && !strncasecmp(p, "charset", 7);
		p += name_len;
		if (*p != '=') {
			if (is_charset)
				return false;
			continue;
		}
		char value[8];
		size_t n = 0, len = 0;
		if (*++p == '"') {
			for (p++; *p && *p != '"'; p++, len++) {
				if (*p == '\\' && p[1])
					p++;
				if (n < sizeof value - 1)
					value[n++] = *p;
			}
			if (*p != '"' && is_charset)
				return false; /* an unterminated quoted-string */
			if (*p == '"')
				p++;
		} else {
			for (; *p && *p != ';' && *p != ' ' && *p != '\t'; p++, len++)
				if (n < sizeof value - 1)
					value[n++] = *p;
		}
		value[n] = '\0';
		p += strspn(p, " \t");
		bool ends = !*p || *p == ';';
		if (is_charset && (!ends || len != 5 || strcasecmp(value, "utf-8") != 0))
			return false;
	}
	return true;
}

/* Whether the request is a write carrying a body that is not JSON. */
bool rig_http__body_not_json(struct MHD_Connection *conn, const char *method)
{
	if (!strcmp(method, "GET") || !strcmp(method, "HEAD") || !strcmp(method, "OPTIONS"))
		return false;
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding");
	if (!te && (!cl || strspn(cl, "0") == strlen(cl)))
		return false; /* no body: no Content-Type needed */
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
	if (!ct)
		return true;
	ct += strspn(ct, " \t");
	if (strncasecmp(ct, "application/json", 16) != 0 ||
	    (ct[16] != '\0' && ct[16] != ';' && ct[16] != ' ' && ct[16] != '\t'))
		return true;
	return !charsets_are_utf8(ct + 16);
}

void rig_http__census(struct rig_header_census *out, struct MHD_Connection *conn,
		      const char *method)
{
	memset(out, 0, sizeof *out);
	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, count_header, out);
	/* The header block runs from the method's first byte to the blank line's
	 * end: REQUEST_HEADER_SIZE counts it (leading empty lines excluded). */
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	if (info && info->header_size)
		check_value_end(out, method + info->header_size, 4);
	else if (out->value_end && out->value_end[1] != '\0')
		out->nul_in_value = out->value_key;
}

/* The client's address as 16 bytes (IPv4 mapped into IPv6); false if unknown. */
bool rig_http__addr_key(unsigned char out[16], const struct sockaddr *addr)
{
	if (addr && addr->sa_family == AF_INET) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)addr)->sin_addr, 4);
		return true;
	}
	if (addr && addr->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
		return true;
	}
	return false;
}

/* Reads a whole PEM file into a new NUL-terminated buffer (free it); NULL
 * with a message in err when it cannot be read. */
char *rig_http__read_pem(const char *path, const char *what, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	if (!f) {
		snprintf(err, err_size, "cannot read the TLS %s '%s': %s", what, path,
			 strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			char *grown = cap <= (1u << 20) ? realloc(buf, cap) : NULL;
			if (!grown) {
				snprintf(err, err_size, "the TLS %s '%s' is too large", what, path);
				goto out_fail;
			}
			buf = grown;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f) || len == 0) {
		snprintf(err, err_size, "cannot read the TLS %s '%s': %s", what, path,
			 len ? strerror(errno) : "empty file");
		goto out_fail;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
out_fail:
	fclose(f);
	free(buf);
	return NULL;
}
