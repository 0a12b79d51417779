/* Numbers, compact JSON and cell text of output.h. */
#include "clients/output.h"

#include <stdlib.h>
#include <string.h>

int rig_out_double(char out[RIG_OUT_DOUBLE_MAX], double v)
{
	/* %.15g already drops trailing zeros, so it is the shortest form whenever
	 * 15 digits or fewer round-trip; 17 always do for a double. */
	int n = 0;
	for (int digits = 15; digits <= 17; digits++) {
		n = snprintf(out, RIG_OUT_DOUBLE_MAX, "%.*g", digits, v);
		if (digits == 17 || strtod(out, NULL) == v)
			break;
	}
	return n;
}

static int json_string_to(struct rig_bytes *b, const char *s, size_t len)
{
	int rc = rig_bytes_puts(b, "\"");
	for (size_t i = 0; i < len && rc == 0; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			rc = rig_bytes_printf(b, "\\%c", c);
		else if (c < 0x20)
			rc = rig_bytes_printf(b, "\\u%04x", c);
		else
			rc = rig_bytes_append(b, &s[i], 1);
	}
	return rc ? rc : rig_bytes_puts(b, "\"");
}

static int real_to(struct rig_bytes *b, double v, bool keep_real)
{
	char text[RIG_OUT_DOUBLE_MAX];
	rig_out_double(text, v);
	if (keep_real && !strpbrk(text, ".eEni"))
		strcat(text, ".0");
	return rig_bytes_puts(b, text);
}

/* The JSON writer; keep_real adds ".0" to integral reals. */
static int json_to(struct rig_bytes *b, const json_t *v, bool keep_real)
{
	int rc = 0;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *member;
		bool first = true;
		rc = rig_bytes_puts(b, "{");
		/* json_object_foreach wants a non-const object; it only reads it. */
		json_object_foreach((json_t *)v, key, member)
		{
			if (rc == 0 && !first)
				rc = rig_bytes_puts(b, ",");
			if (rc == 0)
				rc = json_string_to(b, key, strlen(key));
			if (rc == 0)
				rc = rig_bytes_puts(b, ":");
			if (rc == 0)
				rc = json_to(b, member, keep_real);
			first = false;
		}
		return rc ? rc : rig_bytes_puts(b, "}");
	}
	case JSON_ARRAY:
		rc = rig_bytes_puts(b, "[");
		for (size_t i = 0; i < json_array_size(v) && rc == 0; i++) {
			if (i)
				rc = rig_bytes_puts(b, ",");
			if (rc == 0)
				rc = json_to(b, json_array_get(v, i), keep_real);
		}
		return rc ? rc : rig_bytes_puts(b, "]");
	case JSON_STRING:
		return json_string_to(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return rig_bytes_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL:
		return real_to(b, json_real_value(v), keep_real);
	case JSON_TRUE:
		return rig_bytes_puts(b, "true");
	case JSON_FALSE:
		return rig_bytes_puts(b, "false");
	case JSON_NULL:
		return rig_bytes_puts(b, "null");
	}
	return -1;
}

int rig_out_json(struct rig_bytes *b, const json_t *v)
{
	return json_to(b, v, true);
}

int rig_out_json_line(FILE *f, const json_t *v)
{
	struct rig_bytes b;
	rig_bytes_init(&b);
	int rc = rig_out_json(&b, v);
	if (rc == 0)
		rc = rig_bytes_puts(&b, "\n");
	if (rc == 0 && fwrite(b.data, 1, b.len, f) != b.len)
		rc = -1;
	rig_bytes_release(&b);
	return rc;
}

int rig_out_cell(struct rig_bytes *b, const json_t *v)
{
	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v))
		return rig_bytes_append(b, json_string_value(v), json_string_length(v));
	return json_to(b, v, false);
}

int rig_out_csv_field(FILE *f, const char *text)
{
	if (!strpbrk(text, ",\"\r\n"))
		return fputs(text, f) < 0 ? -1 : 0;
	if (fputc('"', f) == EOF)
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p == '"' && fputc('"', f) == EOF)
			return -1;
		if (fputc(*p, f) == EOF)
			return -1;
	}
	return fputc('"', f) == EOF ? -1 : 0;
}
