/* rigctl constraints / constraint put / constraint delete: a shot's
 * constraints, IK (issue 16) and follow chains (issue 27). The list follows every page token of
 * GET /v1/shots/{id}/constraints (at --version when given); put and delete
 * send an edit batch of one constraint.put or constraint.delete op, with the
 * same --expected-version, --dry-run, --idempotency-key and lock options as
 * rigctl edit, and print its receipt.
 *
 * put builds the whole constraint from options (a put replaces it): mix and
 * softness are static numbers here; keyed ones go through rigctl edit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

/* Appends a keyable channel's cell: its number, or "N keys". */
static void keyable_cell(struct rig_table *t, json_t *c, const char *key)
{
	json_t *v = json_object_get(c, key);
	if (json_is_array(v)) {
		char text[32];
		snprintf(text, sizeof text, "%zu keys", json_array_size(v));
		rig_table_cell(t, text);
	} else {
		rig_ctl_cell(t, c, key);
	}
}

static void constraint_cells(struct rig_table *t, json_t *c)
{
	struct rig_bytes chain;
	rig_bytes_init(&chain);
	json_t *ids = json_object_get(c, "chain");
	for (size_t i = 0; i < json_array_size(ids); i++) {
		const char *id = json_string_value(json_array_get(ids, i));
		rig_bytes_printf(&chain, "%s%s", i ? "," : "", id ? id : "?");
	}
	rig_ctl_cell(t, c, "constraintId");
	rig_ctl_cell(t, c, "order");
	rig_table_cell(t, chain.data ? chain.data : "-");
	rig_ctl_cell(t, c, "target");
	rig_ctl_cell(t, c, "pole");
	json_t *bend = json_object_get(c, "bendPositive"); /* absent on a follow chain */
	rig_table_cell(t, !bend || json_is_false(bend) ? "-" : "+");
	keyable_cell(t, c, "mix");
	keyable_cell(t, c, "softness");
	rig_ctl_cell(t, c, "kind");
	rig_bytes_release(&chain);
}

static const struct rig_ctl_list_view constraint_view = {
	"constraints",
	9,
	{"constraint", "order", "chain", "target", "pole", "bend", "mix", "softness", "kind"},
	{0, 1, 0, 0, 0, 0, 1, 1, 0},
	constraint_cells,
	NULL};

static int list_constraints(struct rig_ctl *c)
{
	struct rig_url u;
	rig_url_init(&u);
	rig_ctl_target(&u, "shots", c->args[0], "/constraints");
	rig_url_query(&u, "version", rig_ctl_opt(c, RIG_CTL_O_VERSION));
	int rc = rig_ctl_list_pages(c, rig_url_get(&u), &constraint_view, true);
	rig_url_release(&u);
	return rc;
}

/* Sets op[field] to the number option o holds, when given. */
static void number_field(json_t *op, const struct rig_ctl *c, enum rig_ctl_opt o, const char *field)
{
	if (rig_ctl_opt(c, o))
		json_object_set_new(op, field, json_real(rig_ctl_number(c, o)));
}

/* Sets op[field] to the id option o holds, when given. */
static int id_field(json_t *op, const struct rig_ctl *c, enum rig_ctl_opt o, const char *field)
{
	const char *text = rig_ctl_opt(c, o);
	if (!text)
		return RIG_EXIT_OK;
	json_t *s = json_string(text);
	if (!s)
		return rig_ctl_usage("--%s '%s' is not valid UTF-8", rig_ctl_options[o].name, text);
	json_object_set_new(op, field, s);
	return RIG_EXIT_OK;
}

/* --chain a,b,c as an array of ids (empty names kept: the server names them). */
static int chain_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_CHAIN);
	json_t *chain = json_array();
	for (const char *p = text;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		json_t *id = json_stringn(p, n);
		if (!id) {
			json_decref(chain);
			return rig_ctl_usage("--chain '%s' is not valid UTF-8", text);
		}
		json_array_append_new(chain, id);
		if (!end)
			break;
		p = end + 1;
	}
	json_object_set_new(op, "chain", chain);
	return RIG_EXIT_OK;
}

/* --limits "cw:acw,-,…" as the op's "limits": one [cw, acw] or null per
 * chain layer (the server checks the count and the range). */
static int limits_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_LIMITS);
	if (!text)
		return RIG_EXIT_OK;
	json_t *limits = json_array();
	for (const char *p = text; limits;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char item[64];
		if (n >= sizeof item) {
			json_decref(limits);
			return rig_ctl_usage("--limits entry '%.*s' is too long", (int)n, p);
		}
		memcpy(item, p, n);
		item[n] = '\0';
		char *colon = strchr(item, ':'), *rest = NULL;
		double cw = 0, acw = 0;
		if (strcmp(item, "-") == 0) {
			json_array_append_new(limits, json_null());
		} else if (colon && (cw = strtod(item, &rest), rest == colon) &&
			   (acw = strtod(colon + 1, &rest), rest != colon + 1 && *rest == '\0')) {
			json_array_append_new(limits, json_pack("[f, f]", cw, acw));
		} else {
			json_decref(limits);
			return rig_ctl_usage("--limits entry '%s' is not CW:ACW (degrees) or -",
					     item);
		}
		if (!end)
			break;
		p = end + 1;
	}
	json_object_set_new(op, "limits", limits);
	return RIG_EXIT_OK;
}

/* --lengths x,y,… as the op's "lengths" (the server checks count and range). */
static int lengths_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_LENGTHS);
	if (!text)
		return RIG_EXIT_OK;
	json_t *lengths = json_array();
	for (const char *p = text;;) {
		char *end = NULL;
		double x = strtod(p, &end);
		if (end == p || (*end != ',' && *end != '\0')) {
			json_decref(lengths);
			return rig_ctl_usage("--lengths '%s' is not numbers separated by commas",
					     text);
		}
		json_array_append_new(lengths, json_real(x));
		if (*end == '\0')
			break;
		p = end + 1;
	}
	json_object_set_new(op, "lengths", lengths);
	return RIG_EXIT_OK;
}

/* --feet ik:x:y,… as the op's "feet" (the id may hold ':', the numbers are
 * the last two fields). */
static int feet_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_FEET);
	if (!text)
		return RIG_EXIT_OK;
	json_t *feet = json_array();
	for (const char *p = text;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char item[256]; /* an id (64 bytes at most) and two numbers */
		char *y_at, *x_at, *rest_end;
		double x = 0, y = 0;
		bool ok = n < sizeof item;
		if (ok) {
			memcpy(item, p, n);
			item[n] = '\0';
			ok = (y_at = strrchr(item, ':')) != NULL;
		}
		if (ok) {
			*y_at++ = '\0';
			ok = (x_at = strrchr(item, ':')) != NULL;
		}
		if (ok) {
			*x_at++ = '\0';
			x = strtod(x_at, &rest_end);
			ok = rest_end != x_at && *rest_end == '\0';
		}
		if (ok) {
			y = strtod(y_at, &rest_end);
			ok = rest_end != y_at && *rest_end == '\0' && item[0];
		}
		json_t *id = ok ? json_string(item) : NULL;
		if (!id) {
			json_decref(feet);
			return rig_ctl_usage("--feet entry '%.*s' is not IK:X:Y", (int)n, p);
		}
		json_array_append_new(
			feet, json_pack("{s:o, s:[f, f]}", "ikConstraintId", id, "rest", x, y));
		if (!end)
			break;
		p = end + 1;
	}
	json_object_set_new(op, "feet", feet);
	return RIG_EXIT_OK;
}

/* --gait 0,2/1,3 as the op's "gait": groups of foot indices. */
static int gait_field(json_t *op, const struct rig_ctl *c)
{
	const char *text = rig_ctl_opt(c, RIG_CTL_O_GAIT);
	if (!text)
		return RIG_EXIT_OK;
	json_t *gait = json_array(), *group = json_array();
	json_array_append_new(gait, group);
	for (const char *p = text;;) {
		char *end;
		long long f = strtoll(p, &end, 10);
		if (end == p || (*end != ',' && *end != '/' && *end != '\0')) {
			json_decref(gait);
			return rig_ctl_usage("--gait '%s' is not foot indices, ',' within a group "
					     "and '/' between groups",
					     text);
		}
		json_array_append_new(group, json_integer(f));
		if (*end == '\0')
			break;
		if (*end == '/')
			json_array_append_new(gait, group = json_array());
		p = end + 1;
	}
	json_object_set_new(op, "gait", gait);
	return RIG_EXIT_OK;
}

/* A walker's fields: body, feet, gait and the step's numbers. */
static int walker_fields(json_t *op, const struct rig_ctl *c)
{
	int rc = id_field(op, c, RIG_CTL_O_BODY, "body");
	if (rc == RIG_EXIT_OK)
		rc = feet_field(op, c);
	if (rc == RIG_EXIT_OK)
		rc = gait_field(op, c);
	number_field(op, c, RIG_CTL_O_STEP_THRESHOLD, "stepThreshold");
	number_field(op, c, RIG_CTL_O_STEP_HEIGHT, "stepHeight");
	if (rig_ctl_opt(c, RIG_CTL_O_STEP_FRAMES))
		json_object_set_new(op, "stepFrames",
				    json_integer(rig_ctl_int(c, RIG_CTL_O_STEP_FRAMES)));
	return rc;
}

/* The constraint.put op from the options; the server refuses fields of the
 * other kind, so they are sent as given. */
static int put_op(json_t *op, const struct rig_ctl *c)
{
	json_object_set_new(op, "kind", json_string("ik"));
	int rc = id_field(op, c, RIG_CTL_O_KIND, "kind"); /* replaces it when given */
	const char *kind = rig_ctl_opt(c, RIG_CTL_O_KIND);
	bool walker = kind && strcmp(kind, "footstep") == 0;
	if (rc == RIG_EXIT_OK && !walker && !rig_ctl_opt(c, RIG_CTL_O_CHAIN))
		rc = rig_ctl_usage("--chain is required (but for --kind footstep)");
	if (rc == RIG_EXIT_OK && !walker && !rig_ctl_opt(c, RIG_CTL_O_TARGET))
		rc = rig_ctl_usage("--target is required (but for --kind footstep)");
	if (rc == RIG_EXIT_OK && rig_ctl_opt(c, RIG_CTL_O_CHAIN))
		rc = chain_field(op, c);
	if (rc == RIG_EXIT_OK)
		rc = walker_fields(op, c);
	if (rc == RIG_EXIT_OK)
		rc = lengths_field(op, c);
	if (rc == RIG_EXIT_OK)
		rc = id_field(op, c, RIG_CTL_O_TARGET, "target");
	if (rc == RIG_EXIT_OK)
		rc = id_field(op, c, RIG_CTL_O_POLE, "pole");
	if (rc == RIG_EXIT_OK && rig_ctl_flag(c, RIG_CTL_O_BEND_POSITIVE) &&
	    rig_ctl_flag(c, RIG_CTL_O_BEND_NEGATIVE))
		rc = rig_ctl_usage("--bend-positive and --bend-negative exclude each other");
	if (rc == RIG_EXIT_OK && rig_ctl_flag(c, RIG_CTL_O_BEND_POSITIVE))
		json_object_set_new(op, "bendPositive", json_true());
	if (rc == RIG_EXIT_OK && rig_ctl_flag(c, RIG_CTL_O_BEND_NEGATIVE))
		json_object_set_new(op, "bendPositive", json_false());
	if (rc != RIG_EXIT_OK)
		return rc;
	number_field(op, c, RIG_CTL_O_TIP_LENGTH, "tipLength");
	number_field(op, c, RIG_CTL_O_MIX, "mix");
	number_field(op, c, RIG_CTL_O_SOFTNESS, "softness");
	number_field(op, c, RIG_CTL_O_SEGMENT_LENGTH, "segmentLength");
	number_field(op, c, RIG_CTL_O_SMOOTHING, "smoothing");
	number_field(op, c, RIG_CTL_O_MAX_ANGLE, "maxAngleDeg");
	if (rig_ctl_opt(c, RIG_CTL_O_SUBSTEPS))
		json_object_set_new(op, "substeps",
				    json_integer(rig_ctl_int(c, RIG_CTL_O_SUBSTEPS)));
	if (rig_ctl_flag(c, RIG_CTL_O_STRETCH))
		json_object_set_new(op, "stretch", json_true());
	if (rig_ctl_flag(c, RIG_CTL_O_COMPRESS))
		json_object_set_new(op, "compress", json_true());
	if (rig_ctl_opt(c, RIG_CTL_O_ORDER))
		json_object_set_new(op, "order", json_integer(rig_ctl_int(c, RIG_CTL_O_ORDER)));
	return limits_field(op, c);
}

/* Posts one constraint op as an edit batch and prints the receipt. */
static int edit_constraint(struct rig_ctl *c)
{
	bool put = c->cmd == RIG_CTL_CONSTRAINT_PUT;
	json_t *op = json_pack("{s:s}", "op", put ? "constraint.put" : "constraint.delete");
	json_t *body = op ? json_pack("{s:[O]}", "ops", op) : NULL;
	struct rig_url u;
	rig_url_init(&u);
	int rc = RIG_EXIT_OK;
	if (!body) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	/* op stays borrowed from body: filling it fills the batch. */
	rc = id_field(op, c, RIG_CTL_O_CONSTRAINT_ID, "constraintId");
	if (rc == RIG_EXIT_OK && put)
		rc = put_op(op, c);
	if (rc == RIG_EXIT_OK)
		rc = rig_ctl_expected_version(c, body);
	if (rc == RIG_EXIT_OK)
		rc = rig_ctl_fence_opts(c, body);
	if (rc != RIG_EXIT_OK)
		goto out;
	rig_ctl_target(&u, "shots", c->args[0], "/edits");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	json_decref(op);
	rig_url_release(&u);
	return rc;
}

int rig_ctl_constraints(struct rig_ctl *c)
{
	return c->cmd == RIG_CTL_CONSTRAINTS ? list_constraints(c) : edit_constraint(c);
}
