/* The format table and what every importer and exporter shares: the ops list,
 * the report, the ids an import makes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/interchange/interchange.h"
#include "core/ids.h"

const struct rig_interchange_format rig_interchange_formats[] = {
	{"rig2d", rig_rig2d_import, rig_rig2d_export, "application/json"},
	{"spine", rig_spine_import, rig_spine_export, "application/json"},
	{"gltf", NULL, rig_gltf_export, "model/gltf-binary"},
};

const size_t rig_interchange_n_formats =
	sizeof rig_interchange_formats / sizeof rig_interchange_formats[0];

const struct rig_interchange_format *rig_interchange_find(const char *name)
{
	for (size_t i = 0; name && i < rig_interchange_n_formats; i++)
		if (strcmp(rig_interchange_formats[i].name, name) == 0)
			return &rig_interchange_formats[i];
	return NULL;
}

void rig_interchange_list(struct rig_err *e, const char *key, bool importing)
{
	for (size_t i = 0; i < rig_interchange_n_formats; i++) {
		const struct rig_interchange_format *f = &rig_interchange_formats[i];
		if (importing ? f->import != NULL : f->export != NULL)
			rig_err_list_add(e, key, f->name);
	}
}

static json_t *report_new(const char *format)
{
	return json_pack("{s:s, s:[], s:[], s:[]}", "format", format, "mapped", "unsupported",
			 "adjusted");
}

json_t *rig_export_report_new(const char *format)
{
	return json_pack("{s:s, s:[]}", "format", format, "unsupported");
}

int rig_export_json(struct rig_export *out, const json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	if (!text)
		return -1;
	out->body = (unsigned char *)text;
	out->len = strlen(text);
	out->content_type = "application/json";
	return 0;
}

int rig_import_init(struct rig_import *im, const char *format, const struct rig_import_opts *opts)
{
	im->opts = opts;
	im->ops = json_array();
	im->sources = json_array();
	im->report = report_new(format);
	im->taken = json_object();
	return im->ops && im->sources && im->report && im->taken ? 0 : -1;
}

void rig_import_release(struct rig_import *im)
{
	json_decref(im->ops);
	json_decref(im->sources);
	json_decref(im->report);
	json_decref(im->taken);
	memset(im, 0, sizeof *im);
}

int rig_import_op(struct rig_import *im, json_t *op, const char *source)
{
	if (!op)
		return -1;
	if (json_array_append_new(im->ops, op) != 0)
		return -1;
	return json_array_append_new(im->sources, json_string(source ? source : ""));
}

bool rig_import_id(char out[RIG_ID_MAX + 1], const struct rig_import *im, const char *name)
{
	return rig_import_id_with(out, im->opts->id_prefix, name);
}

bool rig_import_id_with(char out[RIG_ID_MAX + 1], const char *prefix, const char *name)
{
	size_t p = strlen(prefix), n = strlen(name);
	if (p + n > RIG_ID_MAX || p + n == 0)
		return false;
	memcpy(out, prefix, p);
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' || c == '-';
		out[p + i] = ok ? c : '_';
	}
	out[p + n] = '\0';
	if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		memset(out, '_', p + n);
	return true;
}

long rig_import_claim(struct rig_import *im, const char *id, long index)
{
	json_t *by = json_object_get(im->taken, id);
	if (by)
		return (long)json_integer_value(by);
	json_object_set_new(im->taken, id, json_integer(index));
	return -1;
}

int rig_import_claim_bone(struct rig_import *im, const struct rig_jr *jr, const char *id, size_t i)
{
	long k = rig_import_claim(im, id, (long)i);
	if (k < 0)
		return 0;
	char at[64];
	snprintf(at, sizeof at, "bones/%zu/name", i);
	return rig_jr_fail(jr, at, "bones %ld and %zu both become layer '%s'", k, i, id);
}

bool rig_import_mesh_id(char out[RIG_ID_MAX + 1], struct rig_import *im, const char *name)
{
	char alt[RIG_ID_MAX + 1];
	snprintf(alt, sizeof alt, "%.56s-mesh", name);
	const char *tries[2] = {name, alt};
	for (int k = 0; k < 2; k++)
		if (rig_import_id(out, im, tries[k]) && rig_import_claim(im, out, -1) < 0)
			return true;
	return false;
}

static void add_entry(json_t *report, const char *list, json_t *entry)
{
	if (entry)
		json_array_append_new(json_object_get(report, list), entry);
}

void rig_import_mapped(struct rig_import *im, const char *kind, const char *source,
		       const char *name, const char *id_key, const char *id)
{
	json_t *e = json_pack("{s:s, s:s}", "kind", kind, "source", source);
	if (e && name)
		json_object_set_new(e, "name", json_string(name));
	if (e && id_key && id)
		json_object_set_new(e, id_key, json_string(id));
	add_entry(im->report, "mapped", e);
}

static json_t *noted(const char *feature, const char *where_key, const char *where, const char *fmt,
		     va_list ap)
{
	char detail[400];
	vsnprintf(detail, sizeof detail, fmt, ap);
	json_t *e = json_pack("{s:s, s:s}", "feature", feature, "detail", detail);
	if (e && where)
		json_object_set_new(e, where_key, json_string(where));
	return e;
}

void rig_import_unsupported(struct rig_import *im, const char *feature, const char *source,
			    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_entry(im->report, "unsupported", noted(feature, "source", source, fmt, ap));
	va_end(ap);
}

void rig_import_adjusted(struct rig_import *im, const char *feature, const char *source,
			 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_entry(im->report, "adjusted", noted(feature, "source", source, fmt, ap));
	va_end(ap);
}

void rig_export_unsupported(json_t *report, const char *feature, const char *layer_id,
			    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_entry(report, "unsupported", noted(feature, "layerId", layer_id, fmt, ap));
	va_end(ap);
}
