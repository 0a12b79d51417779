/* The compact array decoder of bulk.h: a strict JSON walker that follows the
 * body's structure only as far as the arrays the binding kinds' rows name
 * (their bulk members, api/edit/binding.h), and one element reader per shape.
 */
#include "api/edit/bulk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig_limits.h"

#define MAX_DEPTH 64 /* deeper documents are left to jansson */
#define MAX_IDS 4096 /* distinct jointIds in one weights array */
#define ID_SLOTS (2 * MAX_IDS)

/* An edit's arrays are kept only when the op turns out to take them there
 * (its name may follow them in the object): a row of some kind names the op,
 * the member holding the array and, for an object holder, the field. Any
 * other op reads such a field, if at all, from the tree, so its bytes must
 * stay in the body (weights.put's vertices are {vertexIndex, influences}). */
#define MAX_PENDING 8 /* an op's arrays awaiting its name; a valid op has at most 3 */

/* An array of the current op, decoded into bulk->items[item] but not yet blanked. */
struct pending {
	char *open, *close; /* its brackets */
	const char *holder; /* the op's member holding it (a row's string) */
	const char *field;  /* the holder's member, NULL when the holder is the array */
};

struct scan {
	char *p;
	struct rig_bulk *bulk;
	bool oom;
	bool at_root;          /* RIG_BULK_SKIN: arrays are the body's own, blanked at once */
	const char *fields_of; /* the holder whose rows name the fields of the object walked */
	struct pending pending[MAX_PENDING]; /* the last n_pending items of bulk */
	size_t n_pending;
	const char *op_name; /* the current op's "op", when a plain string */
	size_t op_len;
};

/* ---- lexical pieces ---- */

static void ws(struct scan *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
		s->p++;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Consumes c when it is next; never steps past the body's final NUL. */
static bool eat(struct scan *s, char c)
{
	if (*s->p != c)
		return false;
	s->p++;
	return true;
}

/* A JSON number, strictly. An integer token of at most 18 digits gives
 * *is_int and *ival; every token gives *dval as jansson's json_number_value
 * would. False for anything jansson would reject or might (19+ digit integers,
 * reals that overflow). */
static bool number(struct scan *s, bool *is_int, long long *ival, double *dval)
{
	const char *start = s->p, *p = s->p;
	bool neg = *p == '-', real = false;
	if (neg)
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (is_digit(*p))
			p++;
	else
		return false;
	const char *int_end = p;
	if (*p == '.') {
		if (!is_digit(*++p))
			return false;
		while (is_digit(*p))
			p++;
		real = true;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			return false;
		while (is_digit(*p))
			p++;
		real = true;
	}
	if (!real) {
		if (int_end - start - neg > 18)
			return false;
		long long v = 0;
		for (const char *q = start + neg; q < int_end; q++)
			v = v * 10 + (*q - '0');
		*ival = neg ? -v : v;
		*dval = (double)*ival;
		*is_int = true;
	} else {
		char buf[64];
		size_t n = (size_t)(p - start);
		if (n >= sizeof buf)
			return false;
		memcpy(buf, start, n);
		buf[n] = '\0';
		double d = strtod(buf, NULL);
		if (!isfinite(d))
			return false;
		*dval = d;
		*is_int = false;
	}
	s->p = (char *)p;
	return true;
}

/* A string; *plain says it has no escape and only printable ASCII, and then
 * [*text, *text + *len) is its value. */
static bool string(struct scan *s, const char **text, size_t *len, bool *plain)
{
	if (*s->p != '"')
		return false;
	const char *p = ++s->p;
	*plain = true;
	for (;;) {
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			break;
		if (c == '\0' || c < 0x20)
			return false; /* the end of the body, or a control character */
		if (c == '\\') {
			*plain = false;
			if (!p[1])
				return false;
			p += 2;
			continue;
		}
		if (c > 0x7e)
			*plain = false;
		p++;
	}
	*text = s->p;
	*len = (size_t)(p - s->p);
	s->p = (char *)p + 1;
	return true;
}

/* Whether the string at s->p is exactly the plain key `key` (then consumed
 * with the colon after it). */
static bool key_is(struct scan *s, const char *key)
{
	size_t n = strlen(key);
	if (s->p[0] != '"' || strncmp(s->p + 1, key, n) != 0 || s->p[1 + n] != '"')
		return false;
	char *save = s->p;
	s->p += n + 2;
	ws(s);
	if (*s->p != ':') {
		s->p = save;
		return false;
	}
	s->p++;
	ws(s);
	return true;
}

static bool literal(struct scan *s, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	return true;
}

/* Skips one value of any kind. False when it is not well-formed JSON (the
 * walk then stops; jansson will say what is wrong). */
static bool skip_value(struct scan *s, int depth)
{
	if (depth > MAX_DEPTH)
		return false;
	ws(s);
	const char *text;
	size_t len;
	bool plain, is_int;
	long long i;
	double d;
	switch (*s->p) {
	case '"':
		return string(s, &text, &len, &plain);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	case '[':
		s->p++;
		ws(s);
		if (*s->p == ']') {
			s->p++;
			return true;
		}
		for (;;) {
			if (!skip_value(s, depth + 1))
				return false;
			ws(s);
			if (*s->p == ']') {
				s->p++;
				return true;
			}
			if (!eat(s, ','))
				return false;
		}
	case '{':
		s->p++;
		ws(s);
		if (*s->p == '}') {
			s->p++;
			return true;
		}
		for (;;) {
			ws(s);
			if (!string(s, &text, &len, &plain))
				return false;
			ws(s);
			if (!eat(s, ':') || !skip_value(s, depth + 1))
				return false;
			ws(s);
			if (*s->p == '}') {
				s->p++;
				return true;
			}
			if (!eat(s, ','))
				return false;
		}
	default:
		return number(s, &is_int, &i, &d);
	}
}

/* ---- growing arrays ---- */

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(*p, cap2 * elem);
	if (!q)
		return false;
	*p = q;
	*cap = cap2;
	return true;
}

/* ---- the element readers; each leaves s->p after its element ---- */

static bool read_xy(struct scan *s, double out[2])
{
	bool seen[2] = {false, false}, is_int;
	long long i;
	if (!eat(s, '{'))
		return false;
	for (int k = 0; k < 2; k++) {
		ws(s);
		int which = key_is(s, "x") ? 0 : key_is(s, "y") ? 1 : -1;
		if (which < 0 || seen[which] || !number(s, &is_int, &i, &out[which]))
			return false;
		seen[which] = true;
		ws(s);
		if (!eat(s, (k == 0 ? ',' : '}')))
			return false;
	}
	return true;
}

static bool read_triangle(struct scan *s, uint32_t out[3])
{
	if (!eat(s, '['))
		return false;
	for (int k = 0; k < 3; k++) {
		bool is_int;
		long long i;
		double d;
		ws(s);
		if (!number(s, &is_int, &i, &d))
			return false;
		/* as ops_skin.c's as_index: only an integer in [0, 2^32 - 1) is an index */
		out[k] = is_int && i >= 0 && i < (long long)UINT32_MAX ? (uint32_t)i : UINT32_MAX;
		ws(s);
		if (!eat(s, (k == 2 ? ']' : ',')))
			return false;
	}
	return true;
}

struct ids {
	char (*text)[RIG_ID_MAX + 1];
	size_t n, cap;
	uint16_t slot[ID_SLOTS]; /* 1 + index into text, 0 = empty */
};

/* The index of id (len bytes) in ids, added when new; -1 when full or out of memory. */
static long intern(struct ids *ids, const char *id, size_t len, bool *oom)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)id[i]) * 16777619u;
	for (size_t at = h % ID_SLOTS;; at = (at + 1) % ID_SLOTS) {
		uint16_t v = ids->slot[at];
		if (v == 0) {
			if (ids->n == MAX_IDS)
				return -1;
			if (!grow((void **)&ids->text, &ids->cap, ids->n + 1, sizeof *ids->text)) {
				*oom = true;
				return -1;
			}
			memcpy(ids->text[ids->n], id, len);
			ids->text[ids->n][len] = '\0';
			ids->slot[at] = (uint16_t)(++ids->n);
			return (long)ids->n - 1;
		}
		const char *t = ids->text[v - 1];
		if (strncmp(t, id, len) == 0 && t[len] == '\0')
			return v - 1;
	}
}

static bool read_influence(struct scan *s, struct ids *ids, struct rig_skin_influence *out)
{
	bool seen_id = false, seen_w = false, is_int;
	long long i;
	if (!eat(s, '{'))
		return false;
	for (int k = 0; k < 2; k++) {
		ws(s);
		if (!seen_id && key_is(s, "jointId")) {
			const char *text;
			size_t len;
			bool plain;
			if (!string(s, &text, &len, &plain) || !plain || len > RIG_ID_MAX)
				return false;
			long at = intern(ids, text, len, &s->oom);
			if (at < 0)
				return false;
			out->joint = (uint32_t)at;
			seen_id = true;
		} else if (!seen_w && key_is(s, "weight")) {
			if (!number(s, &is_int, &i, &out->weight))
				return false;
			seen_w = true;
		} else {
			return false;
		}
		ws(s);
		if (!eat(s, (k == 0 ? ',' : '}')))
			return false;
	}
	return true;
}

/* ---- one array ---- */

/* Reads the array at s->p ('[') into a; false (a partly filled) when an
 * element does not qualify or memory ran out (s->oom). */
static bool read_array(struct scan *s, struct rig_bulk_array *a)
{
	size_t cap = 0, icap = 0, n_infl = 0;
	struct ids *ids = NULL;
	if (a->field == RIG_BULK_WEIGHTS) {
		ids = calloc(1, sizeof *ids);
		size_t ocap = 0;
		if (!ids || !grow((void **)&a->offsets, &ocap, 1, sizeof *a->offsets)) {
			s->oom = true;
			free(ids);
			return false;
		}
		cap = ocap;
	}
	bool ok = false;
	s->p++;
	ws(s);
	if (*s->p == ']') {
		s->p++;
		ok = true;
		goto done;
	}
	for (;;) {
		size_t n = a->count;
		bool good;
		switch (a->field) {
		case RIG_BULK_SOURCE:
			if (!grow((void **)&a->source, &cap, n + 1, 2 * sizeof *a->source))
				goto oom;
			good = read_xy(s, &a->source[2 * n]);
			break;
		case RIG_BULK_TRIANGLES:
			if (!grow((void **)&a->triangles, &cap, n + 1, 3 * sizeof *a->triangles))
				goto oom;
			good = read_triangle(s, &a->triangles[3 * n]);
			break;
		case RIG_BULK_WEIGHTS: {
			if (!grow((void **)&a->offsets, &cap, n + 2, sizeof *a->offsets))
				goto oom;
			a->offsets[n] = (uint32_t)n_infl;
			good = eat(s, '[');
			ws(s);
			if (good && *s->p == ']') {
				s->p++;
				break;
			}
			for (size_t k = 0; good; k++) {
				if (k == RIG_MAX_INFLUENCES || n_infl >= UINT32_MAX - 1) {
					good = false;
					break;
				}
				if (!grow((void **)&a->influences, &icap, n_infl + 1,
					  sizeof *a->influences))
					goto oom;
				good = read_influence(s, ids, &a->influences[n_infl++]);
				ws(s);
				if (good && *s->p == ']') {
					s->p++;
					break;
				}
				good = good && eat(s, ',');
				ws(s);
			}
			break;
		}
		}
		if (!good || s->oom)
			goto done;
		a->count++;
		ws(s);
		if (*s->p == ']') {
			s->p++;
			ok = true;
			goto done;
		}
		if (!eat(s, ','))
			goto done;
		ws(s);
	}
oom:
	s->oom = true;
done:
	if (ids) {
		if (ok) {
			a->offsets[a->count] = (uint32_t)n_infl;
			a->ids = ids->text;
			a->n_ids = ids->n;
		} else {
			free(ids->text);
		}
		free(ids);
	}
	return ok && !s->oom;
}

static void array_release(struct rig_bulk_array *a)
{
	free(a->source);
	free(a->triangles);
	free(a->offsets);
	free(a->influences);
	free(a->ids);
	free(a->id_of);
	memset(a, 0, sizeof *a);
}

/* Blanks the elements between an array's brackets, keeping lines and columns. */
static void blank(char *open, char *close)
{
	for (char *q = open + 1; q < close; q++)
		if (*q != '\n')
			*q = ' ';
}

/* The value at s->p may be an array of shape `field` held as row says:
 * decodes it when it qualifies (blanked at once at the root, else when its op
 * turns out to take it), else skips it. False when the walk must stop. */
static bool maybe_array(struct scan *s, long op_index, const struct rig_bulk_member *row, int depth)
{
	enum rig_bulk_field field = row->shape;
	if (*s->p != '[')
		return skip_value(s, depth);
	char *open = s->p;
	struct rig_bulk_array a = {.op_index = op_index, .field = field};
	if (!read_array(s, &a)) {
		array_release(&a);
		if (s->oom)
			return false;
		s->p = open;
		return skip_value(s, depth);
	}
	struct rig_bulk *b = s->bulk;
	if (!grow((void **)&b->items, &b->cap, b->n + 1, sizeof *b->items)) {
		array_release(&a);
		s->oom = true;
		return false;
	}
	b->items[b->n++] = a;
	if (s->at_root) {
		blank(open, s->p - 1);
	} else if (s->n_pending < MAX_PENDING) {
		s->pending[s->n_pending++] =
			(struct pending){open, s->p - 1, row->holder, row->field};
	} else {
		b->n--; /* only a body with duplicate keys gets here, and jansson rejects it */
		array_release(&b->items[b->n]);
	}
	return true;
}

/* Walks the members of the object at s->p; for each key, `member` handles the
 * value (and must consume it). */
typedef bool (*member_fn)(struct scan *s, const char *key, size_t len, bool plain, long ctx,
			  int depth);

static bool object(struct scan *s, member_fn member, long ctx, int depth)
{
	if (depth > MAX_DEPTH || *s->p != '{')
		return skip_value(s, depth);
	s->p++;
	ws(s);
	if (*s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		const char *key;
		size_t len;
		bool plain;
		ws(s);
		if (!string(s, &key, &len, &plain))
			return false;
		ws(s);
		if (!eat(s, ':'))
			return false;
		ws(s);
		if (!member(s, key, len, plain, ctx, depth + 1))
			return false;
		ws(s);
		if (*s->p == '}') {
			s->p++;
			return true;
		}
		if (!eat(s, ','))
			return false;
	}
}

static bool is_key(const char *key, size_t len, bool plain, const char *want)
{
	return plain && want && len == strlen(want) && memcmp(key, want, len) == 0;
}

/* The first bulk member of any kind (in RIG_BINDING_KINDS order) held by
 * member holder (hlen bytes, plain) of op (olen bytes; any op when NULL),
 * whose field is [field, +flen) when field is given, else one with a field
 * (has_field) or one without. */
static const struct rig_bulk_member *find_row(const char *op, size_t olen, const char *holder,
					      size_t hlen, const char *field, size_t flen,
					      bool has_field)
{
	for (size_t k = 0; k < rig_binding_n_kinds; k++) {
		const struct rig_binding_kind *kind = rig_binding_kinds[k];
		for (size_t i = 0; i < kind->n_bulk_members; i++) {
			const struct rig_bulk_member *r = &kind->bulk_members[i];
			if (!is_key(holder, hlen, true, r->holder) ||
			    (op && !is_key(op, olen, true, r->op)))
				continue;
			if (field ? is_key(field, flen, true, r->field)
				  : (r->field != NULL) == has_field)
				return r;
		}
	}
	return NULL;
}

/* A member of the object s->fields_of holds: an array when a row names it. */
static bool holder_member(struct scan *s, const char *key, size_t len, bool plain, long op_index,
			  int depth)
{
	const struct rig_bulk_member *row =
		plain ? find_row(NULL, 0, s->fields_of, strlen(s->fields_of), key, len, true)
		      : NULL;
	return row ? maybe_array(s, op_index, row, depth) : skip_value(s, depth);
}

static bool op_member(struct scan *s, const char *key, size_t len, bool plain, long op_index,
		      int depth)
{
	if (is_key(key, len, plain, "op") && *s->p == '"') {
		const char *name;
		size_t n;
		bool name_plain;
		if (!string(s, &name, &n, &name_plain))
			return false;
		s->op_name = name_plain ? name : NULL;
		s->op_len = n;
		return true;
	}
	if (!plain)
		return skip_value(s, depth);
	/* A member some row names: the array itself (layer.mesh.key.put's
	 * vertices), or an object holding arrays (layer.skin's skin). */
	const struct rig_bulk_member *row = find_row(NULL, 0, key, len, NULL, 0, *s->p == '{');
	if (!row)
		return skip_value(s, depth);
	if (!row->field)
		return maybe_array(s, op_index, row, depth);
	s->fields_of = row->holder;
	return object(s, holder_member, op_index, depth);
}

/* Whether the op just walked takes the array p: a row names the op, its
 * holder and its field. */
static bool op_takes(const struct scan *s, const struct pending *p)
{
	return s->op_name && find_row(s->op_name, s->op_len, p->holder, strlen(p->holder), p->field,
				      p->field ? strlen(p->field) : 0, false);
}

/* Once an op's object is walked (whole, when walked): blanks the arrays it
 * takes and drops the rest, which stay in the body for jansson. */
static void settle_op(struct scan *s, bool walked)
{
	struct rig_bulk *b = s->bulk;
	size_t first = b->n - s->n_pending, kept = first;
	for (size_t k = 0; k < s->n_pending; k++) {
		struct rig_bulk_array *a = &b->items[first + k];
		if (walked && op_takes(s, &s->pending[k])) {
			blank(s->pending[k].open, s->pending[k].close);
			b->items[kept++] = *a;
		} else {
			array_release(a);
		}
	}
	b->n = kept;
	s->n_pending = 0;
	s->op_name = NULL;
}

static bool root_member(struct scan *s, const char *key, size_t len, bool plain, long ctx,
			int depth)
{
	if (!is_key(key, len, plain, "ops") || *s->p != '[')
		return skip_value(s, depth);
	s->p++;
	ws(s);
	if (*s->p == ']') {
		s->p++;
		return true;
	}
	for (long i = 0;; i++) {
		ws(s);
		bool walked = object(s, op_member, i, depth + 1);
		settle_op(s, walked);
		if (!walked)
			return false;
		ws(s);
		if (*s->p == ']') {
			s->p++;
			return true;
		}
		if (!eat(s, ','))
			return false;
	}
}

/* ---- public ---- */

int rig_bulk_extract(struct rig_bulk **out, char *body, size_t len, enum rig_bulk_mode mode,
		     size_t min_bytes)
{
	*out = NULL;
	if (!body || len < min_bytes || strlen(body) != len)
		return 0; /* a NUL inside: leave the whole body to jansson */
	struct rig_bulk *b = calloc(1, sizeof *b);
	if (!b)
		return -RIG_MEMORY_BUSY;
	struct scan s = {.p = body, .bulk = b, .at_root = mode == RIG_BULK_SKIN};
	ws(&s);
	if (mode == RIG_BULK_SKIN) {
		s.fields_of = RIG_BULK_SKIN_HOLDER;
		object(&s, holder_member, RIG_NO_INDEX, 0);
	} else {
		object(&s, root_member, RIG_NO_INDEX, 0);
	}
	if (s.oom) {
		rig_bulk_free(b);
		return -RIG_MEMORY_BUSY;
	}
	if (b->n == 0) {
		rig_bulk_free(b);
		return 0;
	}
	*out = b;
	return 0;
}

struct rig_bulk_array *rig_bulk_find(struct rig_bulk *b, long op_index, enum rig_bulk_field field)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (b->items[i].op_index == op_index && b->items[i].field == field)
			return &b->items[i];
	return NULL;
}

void rig_bulk_free(struct rig_bulk *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		array_release(&b->items[i]);
	free(b->items);
	free(b);
}
