/* The archive value layout (storage/layer_archive.h): every row reads back bit
 * for bit, values at their defaults take no room, and any cut or bad byte of
 * a value is malformed, never read past its end. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/keys.h"
#include "storage/layer_archive.h"

static void same_row(const struct rig_layer_row *got, const struct rig_layer_row *want)
{
	cr_assert_str_eq(got->id, want->id);
	cr_assert_eq(got->flags, want->flags);
	if (!(want->flags & RIG_ARCHIVE_ROW))
		return;
	cr_assert_eq(got->valid_from, want->valid_from);
	cr_assert_eq(got->ord, want->ord);
	cr_assert_eq(got->kind, want->kind);
	cr_assert_str_eq(got->name, want->name);
	cr_assert_str_eq(got->parent_id, want->parent_id);
	cr_assert_arr_eq(got->statics, want->statics, sizeof want->statics);
	cr_assert_arr_eq(&got->time_offset, &want->time_offset, sizeof want->time_offset);
	cr_assert_eq(got->keys_size, want->keys_size);
	if (want->keys_size)
		cr_assert_arr_eq(got->keys, want->keys, want->keys_size);
}

static double bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof v);
	return v;
}

Test(layer_archive, rows_read_back_bit_for_bit)
{
	static const unsigned char keys[5] = {1, 2, 3, 4, 5};
	char long_name[300];
	memset(long_name, 'n', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	char long_id[RIG_ID_MAX + 1];
	memset(long_id, 'i', RIG_ID_MAX);
	long_id[RIG_ID_MAX] = '\0';
	struct rig_transform d = rig_transform_default();
	struct rig_layer_row rows[5] = {
		{.id = "created"},
		{.id = "posed",
		 .flags = RIG_ARCHIVE_ROW | RIG_ARCHIVE_KEYS_ROWS,
		 .valid_from = 7,
		 .ord = 3,
		 .name = "Posed",
		 .parent_id = "root"},
		{.id = long_id,
		 .flags = RIG_ARCHIVE_ROW | RIG_ARCHIVE_DELETED,
		 .valid_from = INT64_MAX,
		 .ord = INT64_MAX,
		 .kind = RIG_LAYER_MESH,
		 .name = long_name,
		 .parent_id = long_id,
		 .keys = keys,
		 .keys_size = sizeof keys},
		{.id = "odd",
		 .flags = RIG_ARCHIVE_ROW | RIG_ARCHIVE_KEYS_ROWS,
		 .name = "",
		 .parent_id = ""},
		{.id = "b", .flags = RIG_ARCHIVE_ROW, .name = "B", .parent_id = ""},
	};
	memcpy(rows[1].statics, d.ch, sizeof d.ch);
	rows[1].statics[RIG_CH_ROTATION] = 0.25;
	memcpy(rows[2].statics, d.ch, sizeof d.ch);
	rows[2].time_offset = -12.5;
	/* not the defaults' bits: -0.0, a NaN, the default of another channel */
	rows[3].statics[RIG_CH_POSITION_X] = -0.0;
	rows[3].statics[RIG_CH_POSITION_Y] = bits(0x7ff8000000000123ull);
	rows[3].statics[RIG_CH_SCALE_X] = 0;
	rows[3].statics[RIG_CH_SCALE_Y] = 1;
	rows[3].statics[RIG_CH_PIVOT_X] = 1;
	rows[3].time_offset = bits(0x8000000000000000ull);
	memcpy(rows[4].statics, d.ch, sizeof d.ch);

	struct rig_archive_buf a = {0};
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(rig_archive_put(&a, &rows[i]), 0);
	const unsigned char *p = a.bytes, *end = a.bytes + a.size;
	struct rig_layer_row got;
	for (size_t i = 0; i < 5; i++) {
		cr_assert_eq(rig_archive_next(&p, end, &got), 1, "row %zu", i);
		same_row(&got, &rows[i]);
	}
	cr_assert_eq(rig_archive_next(&p, end, &got), 0);
	free(a.bytes);
}

Test(layer_archive, a_posed_layer_takes_about_25_bytes)
{
	struct rig_transform d = rig_transform_default();
	struct rig_layer_row row = {.id = "p12",
				    .flags = RIG_ARCHIVE_ROW | RIG_ARCHIVE_KEYS_ROWS,
				    .valid_from = 41000,
				    .ord = 12,
				    .name = "P12",
				    .parent_id = ""};
	memcpy(row.statics, d.ch, sizeof d.ch);
	row.statics[RIG_CH_ROTATION] = 2;
	struct rig_archive_buf a = {0};
	cr_assert_eq(rig_archive_put(&a, &row), 0);
	cr_assert_leq(a.size, 30, "%zu bytes", a.size);
	free(a.bytes);
}

Test(layer_archive, ids_and_parents_past_the_limit_are_refused)
{
	char id[RIG_ID_MAX + 2];
	memset(id, 'x', RIG_ID_MAX + 1);
	id[RIG_ID_MAX + 1] = '\0';
	struct rig_archive_buf a = {0};
	cr_assert_eq(rig_archive_put(&a, &(struct rig_layer_row){.id = id}), -1);
	cr_assert_eq(rig_archive_put(&a, &(struct rig_layer_row){.id = ""}), -1);
	cr_assert_eq(rig_archive_put(&a, &(struct rig_layer_row){.id = "a",
								 .flags = RIG_ARCHIVE_ROW,
								 .name = "",
								 .parent_id = id}),
		     -1);
	cr_assert_eq(a.size, 0);
	free(a.bytes);
}

/* Every value cut short, and every value with one byte changed, either reads
 * as entries inside its bytes or is malformed: the reader never goes past
 * the end it is given (AddressSanitizer would say), and a cut inside the
 * last entry is always malformed. */
Test(layer_archive, cut_or_changed_values_are_malformed_not_overrun)
{
	static const unsigned char keys[3] = {9, 8, 7};
	struct rig_layer_row rows[3] = {
		{.id = "a",
		 .flags = RIG_ARCHIVE_ROW,
		 .valid_from = 300,
		 .ord = 1,
		 .name = "A",
		 .parent_id = "r",
		 .keys = keys,
		 .keys_size = 3},
		{.id = "bb"},
		{.id = "c",
		 .flags = RIG_ARCHIVE_ROW | RIG_ARCHIVE_KEYS_ROWS,
		 .name = "C",
		 .parent_id = ""},
	};
	rows[0].statics[RIG_CH_ROTATION] = 1;
	rows[2].statics[RIG_CH_SCALE_X] = 1;
	struct rig_archive_buf a = {0};
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(rig_archive_put(&a, &rows[i]), 0);
	size_t last = 0; /* where the last entry begins */
	{
		const unsigned char *p = a.bytes;
		struct rig_layer_row row;
		for (int i = 0; i < 2; i++)
			cr_assert_eq(rig_archive_next(&p, a.bytes + a.size, &row), 1);
		last = (size_t)(p - a.bytes);
	}
	for (size_t cut = 0; cut < a.size; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		memcpy(copy, a.bytes, cut);
		const unsigned char *p = copy, *end = copy + cut;
		struct rig_layer_row row;
		int got, n = 0;
		while ((got = rig_archive_next(&p, end, &row)) == 1)
			n++;
		cr_assert(p <= end);
		if (cut > last)
			cr_assert_eq(got, -1, "cut at %zu of %zu", cut, a.size);
		cr_assert_leq(n, 2);
		free(copy);
	}
	for (size_t at = 0; at < a.size; at++)
		for (int delta = 1; delta < 256; delta += 37) {
			unsigned char *copy = malloc(a.size);
			memcpy(copy, a.bytes, a.size);
			copy[at] = (unsigned char)(copy[at] + delta);
			const unsigned char *p = copy, *end = copy + a.size;
			struct rig_layer_row row;
			while (rig_archive_next(&p, end, &row) == 1)
				cr_assert(p <= end);
			free(copy);
		}
	free(a.bytes);
}
