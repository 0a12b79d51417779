/* Aligned text tables for terminals, printed in batches so a paged listing
 * can stream: each flush prints the rows added since the last one, the header
 * before the first batch. A column's width is the widest cell seen so far
 * (header included), so rows of a later, wider batch may sit further right
 * than earlier ones — the price of not holding every page.
 */
#ifndef RIG_TABLE_H
#define RIG_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "clients/bytes.h"

#define RIG_TABLE_MAX_COLS 16

struct rig_table {
	size_t n_cols;
	const char *headers[RIG_TABLE_MAX_COLS]; /* borrowed; must outlive the table */
	bool right[RIG_TABLE_MAX_COLS];          /* right-align (numbers) */
	size_t width[RIG_TABLE_MAX_COLS];        /* in code points */
	struct rig_bytes cells;                  /* pending cells, each NUL-terminated */
	size_t n_cells;
	bool header_done;
};

/* Sets up a table of n_cols columns (at most RIG_TABLE_MAX_COLS) named by
 * headers; right[c] right-aligns column c, right may be NULL. Borrows the
 * header strings. Release with rig_table_release. */
void rig_table_init(struct rig_table *t, size_t n_cols, const char *const *headers,
		    const bool *right);

/* Frees the pending cells. Safe to call twice. */
void rig_table_release(struct rig_table *t);

/* Adds the next cell, row by row, left to right; the text is copied. Returns
 * 0 or -1 (out of memory). */
int rig_table_cell(struct rig_table *t, const char *text);

/* Adds a cell printed from a format. Returns 0 or -1 as rig_table_cell. */
int rig_table_cellf(struct rig_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prints the pending complete rows to f (after the header, the first time)
 * and forgets them. Returns 0, or -1 when a write fails. */
int rig_table_flush(struct rig_table *t, FILE *f);

#endif
