/* rigctl pin add / move / key / delete / list: the pins of a layer's puppet
 * (issue 24). The writes send an edit batch of layer.puppet.pin.* ops, with
 * the same --expected-version, --dry-run, --check-frames, --idempotency-key
 * and lock options as rigctl edit, and print its receipt; list prints every
 * page of GET .../mesh-data/pins.
 *
 *   add      one layer.puppet.pin.put built from the options (a put replaces a
 *            pin of the same id whole, its keys too)
 *   move     with --frame: layer.puppet.pin.key.put of position.x and
 *            position.y at that frame; without it a new rest position: the pin
 *            read back from mesh-data pins, x and y changed, put again (keys
 *            and static values kept), sent with the version it was read at as
 *            expectedVersion so a write in between is VERSION_CONFLICT rather
 *            than lost
 *   key      one key of one channel (layer.puppet.pin.key.put)
 *   delete   layer.puppet.pin.delete
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/url.h"

/* ---- pin list ---- */

/* A pin's keys as "rotation 2, overlap 1" (channel and key count), "-"
 * without keys. */
static void keys_cell(struct rig_table *t, json_t *keys)
{
	struct rig_bytes text;
	const char *channel;
	json_t *list;
	rig_bytes_init(&text);
	json_object_foreach(keys, channel, list)
	{
		rig_bytes_printf(&text, "%s%s %zu", text.len ? ", " : "", channel,
				 json_array_size(list));
	}
	rig_table_cell(t, text.len && text.data ? text.data : "-");
	rig_bytes_release(&text);
}

static void pin_cells(struct rig_table *t, json_t *pin)
{
	static const char *const fields[] = {"id",          "pinIndex",     "x",         "y",
					     "vertexIndex", "rotation",     "stiffness", "scale",
					     "overlap",     "overlapExtent"};
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
		rig_ctl_cell(t, pin, fields[k]);
	keys_cell(t, json_object_get(pin, "keys"));
}

static const struct rig_ctl_list_view pin_view = {"items",
						  11,
						  {"pin", "index", "x", "y", "vertex", "rotation",
						   "stiffness", "scale", "overlap", "extent",
						   "keys"},
						  {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
						  pin_cells,
						  "pins"};

/* Appends "/v1/shots/{shot}/layers/{layer}/mesh-data/pins" to u. */
static void pins_target(struct rig_url *u, const struct rig_ctl *c)
{
	rig_ctl_target(u, "shots", rig_ctl_opt(c, RIG_CTL_O_SHOT), "/layers");
	rig_url_segment(u, rig_ctl_opt(c, RIG_CTL_O_LAYER));
	rig_url_path(u, "/mesh-data/pins");
}

static int list_pins(struct rig_ctl *c)
{
	struct rig_url u;
	rig_url_init(&u);
	pins_target(&u, c);
	rig_url_query(&u, "version", rig_ctl_opt(c, RIG_CTL_O_VERSION));
	int rc = rig_ctl_list_pages(c, rig_url_get(&u), &pin_view, true);
	rig_url_release(&u);
	return rc;
}

/* ---- reading a pin back (move without --frame) ---- */

/* Finds pin id among the pins of the layer at version (NULL: the current
 * one), following every page. Stores a new reference to the item in *out and
 * the version read in *at. Returns RIG_EXIT_OK, or RIG_EXIT_FAIL with the
 * failure printed (the server's problem, or no such pin). */
static int read_pin(struct rig_ctl *c, const char *id, const char *version, json_t **out,
		    json_int_t *at)
{
	char *token = NULL;
	struct rig_bytes ids;
	int rc = RIG_EXIT_FAIL;
	*out = NULL;
	rig_bytes_init(&ids);
	for (;;) {
		struct rig_url u;
		json_t *page = NULL;
		rig_url_init(&u);
		pins_target(&u, c);
		rig_url_query(&u, "version", version);
		rig_url_query(&u, "pageToken", token);
		rc = rig_ctl_call(c, "GET", rig_url_get(&u), NULL, NULL, NULL, &page);
		rig_url_release(&u);
		if (rc != RIG_EXIT_OK)
			break;
		*at = json_integer_value(json_object_get(page, "shotVersion"));
		size_t i;
		json_t *item;
		json_array_foreach(json_object_get(page, "items"), i, item)
		{
			const char *pin = json_string_value(json_object_get(item, "id"));
			if (pin && strcmp(pin, id) == 0)
				*out = json_incref(item);
			else if (pin)
				rig_bytes_printf(&ids, "%s%s", ids.len ? ", " : "", pin);
		}
		const char *next = json_string_value(json_object_get(page, "nextPageToken"));
		if (*out || !next) {
			json_decref(page);
			break;
		}
		rc = rig_report_next_token(stderr, RIG_CTL_PROG, &token, next);
		json_decref(page);
		if (rc != RIG_EXIT_OK)
			break;
	}
	if (rc == RIG_EXIT_OK && !*out)
		rc = rig_report_fail(
			stderr, RIG_CTL_PROG,
			"layer '%s' of shot '%s' has no pin '%s' at version %" JSON_INTEGER_FORMAT
			" (%s%s); add it with 'rigctl pin add'",
			rig_ctl_opt(c, RIG_CTL_O_LAYER), rig_ctl_opt(c, RIG_CTL_O_SHOT), id, *at,
			ids.len ? "its pins: " : "no pins: is it a puppet?",
			ids.len ? ids.data : "");
	free(token);
	rig_bytes_release(&ids);
	return rc;
}

/* ---- building ops ---- */

/* Sets o[field] to the number option opt holds, when given. */
static void number_field(json_t *o, const struct rig_ctl *c, enum rig_ctl_opt opt,
			 const char *field)
{
	if (rig_ctl_opt(c, opt))
		json_object_set_new(o, field, json_real(rig_ctl_number(c, opt)));
}

/* The key {frame, value, interp?, ease?} of --frame and value (a new
 * reference), or NULL with the problem printed (*rc says which). --ease
 * without --interp is a bezier key. */
static json_t *key_json(const struct rig_ctl *c, double value, int *rc)
{
	json_t *key = json_pack("{s:f,s:f}", "frame", rig_ctl_number(c, RIG_CTL_O_PIN_FRAME),
				"value", value);
	const char *interp = rig_ctl_opt(c, RIG_CTL_O_INTERP);
	const char *ease_text = rig_ctl_opt(c, RIG_CTL_O_EASE);
	*rc = RIG_EXIT_OK;
	if (!key) {
		*rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		return NULL;
	}
	if (interp || ease_text)
		json_object_set_new(key, "interp", json_string(interp ? interp : "bezier"));
	if (ease_text) {
		double e[4];
		if ((*rc = rig_ctl_numbers(e, 4, c, RIG_CTL_O_EASE)) != RIG_EXIT_OK) {
			json_decref(key);
			return NULL;
		}
		json_object_set_new(key, "ease", json_pack("[f,f,f,f]", e[0], e[1], e[2], e[3]));
	}
	return key;
}

/* Appends {op, layerId, pinId} (op borrowed from ops); NULL with the problem
 * printed. */
static json_t *pin_op(json_t *ops, const struct rig_ctl *c, const char *name, int *rc)
{
	json_t *layer = rig_ctl_text_json(c, RIG_CTL_O_LAYER);
	json_t *pin = layer ? rig_ctl_text_json(c, RIG_CTL_O_PIN_ID) : NULL;
	json_t *op =
		pin ? json_pack("{s:s,s:o,s:o}", "op", name, "layerId", layer, "pinId", pin) : NULL;
	if (!pin) {
		json_decref(layer);
		*rc = RIG_EXIT_USAGE;
		return NULL;
	}
	if (!op || json_array_append_new(ops, op) != 0) {
		*rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		return NULL;
	}
	*rc = RIG_EXIT_OK;
	return op;
}

/* Appends a layer.puppet.pin.key.put of one key of channel. */
static int key_op(json_t *ops, const struct rig_ctl *c, const char *channel, double value)
{
	int rc;
	json_t *op = pin_op(ops, c, "layer.puppet.pin.key.put", &rc);
	json_t *key = op ? key_json(c, value, &rc) : NULL;
	if (!key)
		return rc;
	json_object_set_new(op, "channel", json_string(channel));
	json_object_set_new(op, "keys", json_pack("[o]", key));
	return RIG_EXIT_OK;
}

/* Appends a layer.puppet.pin.put of pin (a reference this takes). */
static int put_op(json_t *ops, const struct rig_ctl *c, json_t *pin)
{
	int rc;
	json_t *op = pin_op(ops, c, "layer.puppet.pin.put", &rc);
	if (!op) {
		json_decref(pin);
		return rc;
	}
	json_object_del(op, "pinId");
	json_object_set_new(op, "pin", pin);
	return RIG_EXIT_OK;
}

/* pin add: the pin from the options. */
static int add_ops(json_t *ops, const struct rig_ctl *c)
{
	json_t *id = rig_ctl_text_json(c, RIG_CTL_O_PIN_ID);
	if (!id)
		return RIG_EXIT_USAGE;
	json_t *pin = json_pack("{s:o,s:f,s:f}", "id", id, "x", rig_ctl_number(c, RIG_CTL_O_PIN_X),
				"y", rig_ctl_number(c, RIG_CTL_O_PIN_Y));
	if (!pin)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	number_field(pin, c, RIG_CTL_O_ROTATION, "rotation");
	number_field(pin, c, RIG_CTL_O_STIFFNESS, "stiffness");
	number_field(pin, c, RIG_CTL_O_SCALE, "scale");
	number_field(pin, c, RIG_CTL_O_OVERLAP, "overlap");
	number_field(pin, c, RIG_CTL_O_OVERLAP_EXTENT, "overlapExtent");
	return put_op(ops, c, pin);
}

/* pin move: keys at --frame, else the pin read back with a new rest point
 * (body's expectedVersion set to the version read). */
static int move_ops(json_t *ops, json_t *body, struct rig_ctl *c)
{
	double x = rig_ctl_number(c, RIG_CTL_O_PIN_X), y = rig_ctl_number(c, RIG_CTL_O_PIN_Y);
	if (rig_ctl_opt(c, RIG_CTL_O_PIN_FRAME)) {
		int rc = key_op(ops, c, "position.x", x);
		return rc == RIG_EXIT_OK ? key_op(ops, c, "position.y", y) : rc;
	}
	if (rig_ctl_opt(c, RIG_CTL_O_INTERP) || rig_ctl_opt(c, RIG_CTL_O_EASE))
		return rig_ctl_usage("--interp and --ease key a move: they need --frame");
	json_t *pin = NULL;
	json_int_t at = 0;
	int rc = read_pin(c, rig_ctl_opt(c, RIG_CTL_O_PIN_ID),
			  rig_ctl_opt(c, RIG_CTL_O_EXPECTED_VERSION), &pin, &at);
	if (rc != RIG_EXIT_OK)
		return rc;
	/* The item is the pin as pin.put takes it, with two members more. */
	json_object_del(pin, "pinIndex");
	json_object_del(pin, "vertexIndex");
	json_object_set_new(pin, "x", json_real(x));
	json_object_set_new(pin, "y", json_real(y));
	if (json_object_set_new(body, "expectedVersion", json_integer(at)) != 0) {
		json_decref(pin);
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	}
	return put_op(ops, c, pin);
}

/* Posts the ops of one pin write as an edit batch and prints the receipt. */
static int edit_pin(struct rig_ctl *c)
{
	json_t *ops = json_array();
	json_t *body = ops ? json_pack("{s:O}", "ops", ops) : NULL;
	struct rig_url u;
	int rc = RIG_EXIT_OK;
	rig_url_init(&u);
	if (!body) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	/* ops stays borrowed from body: filling it fills the batch. */
	if ((rc = rig_ctl_expected_version(c, body)) != RIG_EXIT_OK ||
	    (rc = rig_ctl_fence_opts(c, body)) != RIG_EXIT_OK)
		goto out;
	if (c->cmd == RIG_CTL_PIN_ADD) {
		rc = add_ops(ops, c);
	} else if (c->cmd == RIG_CTL_PIN_MOVE) {
		rc = move_ops(ops, body, c);
	} else if (c->cmd == RIG_CTL_PIN_KEY) {
		rc = key_op(ops, c, rig_ctl_opt(c, RIG_CTL_O_CHANNEL),
			    rig_ctl_number(c, RIG_CTL_O_VALUE));
	} else {
		pin_op(ops, c, "layer.puppet.pin.delete", &rc);
	}
	if (rc != RIG_EXIT_OK)
		goto out;
	rig_ctl_target(&u, "shots", rig_ctl_opt(c, RIG_CTL_O_SHOT), "/edits");
	rc = rig_ctl_post_write(c, &u, body);
out:
	json_decref(body);
	json_decref(ops);
	rig_url_release(&u);
	return rc;
}

int rig_ctl_pins(struct rig_ctl *c)
{
	return c->cmd == RIG_CTL_PIN_LIST ? list_pins(c) : edit_pin(c);
}
