/* If-Match parsing and matching of etag.h. */
#include "api/util/etag.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* etagc (RFC 9110 §8.8.3): '!', '#'..'~', obs-text. */
static bool is_etagc(unsigned char c)
{
	return c == 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80;
}

/* The version a strong tag's text of len bytes names: a canonical decimal
 * ("0", or no leading zero) up to LLONG_MAX; -1 when it names none. */
static long long tag_version(const char *s, size_t len)
{
	if (len == 0 || (s[0] == '0' && len > 1))
		return -1;
	long long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		int d = s[i] - '0';
		if (v > (LLONG_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

static bool names(const struct rig_if_match *m, long long version)
{
	for (size_t i = 0; i < m->n_versions; i++)
		if (m->versions[i] == version)
			return true;
	return false;
}

int rig_if_match_parse(struct rig_if_match *out, const char *value)
{
	memset(out, 0, sizeof *out);
	out->present = true;
	const char *p = value, *end = value + strlen(value);
	while (p < end && is_ows(*p))
		p++;
	while (end > p && is_ows(end[-1]))
		end--;
	if (end - p == 1 && *p == '*') {
		out->any = true;
		return 0;
	}
	size_t n_tags = 0;
	for (;;) {
		while (p < end && (is_ows(*p) || *p == ','))
			p++; /* empty list elements and the whitespace around commas */
		if (p == end)
			break;
		bool weak = end - p >= 2 && p[0] == 'W' && p[1] == '/';
		p += weak ? 2 : 0;
		if (p == end || *p != '"')
			goto out_invalid;
		const char *tag = ++p;
		while (p < end && is_etagc((unsigned char)*p))
			p++;
		if (p == end || *p != '"')
			goto out_invalid;
		long long v = weak ? -1 : tag_version(tag, (size_t)(p - tag));
		p++;
		n_tags++;
		if (v >= 0 && !names(out, v)) {
			if (out->n_versions == RIG_IF_MATCH_MAX_VERSIONS)
				goto out_invalid;
			out->versions[out->n_versions++] = v;
		}
		while (p < end && is_ows(*p))
			p++;
		if (p < end && *p != ',')
			goto out_invalid;
	}
	if (n_tags == 0)
		goto out_invalid;
	return 0;
out_invalid:
	memset(out, 0, sizeof *out);
	out->present = true;
	return -1;
}

bool rig_if_match_constrains(const struct rig_if_match *m)
{
	return m->present && !m->any;
}

bool rig_if_match_holds(const struct rig_if_match *m, long long version)
{
	return !rig_if_match_constrains(m) || names(m, version);
}

void rig_if_match_expected_json(json_t *obj, const struct rig_if_match *m, const char *one,
				const char *many)
{
	if (m->n_versions == 1) {
		json_object_set_new(obj, one, json_integer(m->versions[0]));
		return;
	}
	json_t *list = json_array();
	for (size_t i = 0; i < m->n_versions; i++)
		json_array_append_new(list, json_integer(m->versions[i]));
	json_object_set_new(obj, many, list);
}

void rig_if_match_describe(char *out, size_t out_size, const struct rig_if_match *m)
{
	if (m->n_versions == 0) {
		snprintf(
			out, out_size,
			"; If-Match names no version (a weak tag or a tag that is no version never "
			"matches)");
		return;
	}
	size_t used =
		(size_t)snprintf(out, out_size, m->n_versions == 1 ? ", not" : ", not any of");
	for (size_t i = 0; i < m->n_versions && used < out_size; i++)
		used += (size_t)snprintf(out + used, out_size - used, "%s %lld", i ? "," : "",
					 m->versions[i]);
}
