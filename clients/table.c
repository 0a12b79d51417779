/* The batch-printed aligned tables of table.h. */
#include "clients/table.h"

#include <stdarg.h>
#include <string.h>

void rig_table_init(struct rig_table *t, size_t n_cols, const char *const *headers,
		    const bool *right)
{
	memset(t, 0, sizeof *t);
	t->n_cols = n_cols < RIG_TABLE_MAX_COLS ? n_cols : RIG_TABLE_MAX_COLS;
	for (size_t c = 0; c < t->n_cols; c++) {
		t->headers[c] = headers[c];
		t->right[c] = right ? right[c] : false;
	}
	rig_bytes_init(&t->cells);
}

void rig_table_release(struct rig_table *t)
{
	rig_bytes_release(&t->cells);
	t->n_cells = 0;
}

int rig_table_cell(struct rig_table *t, const char *text)
{
	if (rig_bytes_append(&t->cells, text, strlen(text) + 1) != 0)
		return -1;
	t->n_cells++;
	return 0;
}

int rig_table_cellf(struct rig_table *t, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return rig_table_cell(t, text);
}

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t width_of(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static int print_row(const struct rig_table *t, FILE *f, const char *const *cells)
{
	for (size_t c = 0; c < t->n_cols; c++) {
		size_t pad = t->width[c] - width_of(cells[c]);
		bool last = c + 1 == t->n_cols;
		if (c && fputs("  ", f) < 0)
			return -1;
		if (t->right[c] && fprintf(f, "%*s", (int)pad, "") < 0)
			return -1;
		if (fputs(cells[c], f) < 0)
			return -1;
		if (!t->right[c] && !last && fprintf(f, "%*s", (int)pad, "") < 0)
			return -1;
	}
	return fputc('\n', f) == EOF ? -1 : 0;
}

int rig_table_flush(struct rig_table *t, FILE *f)
{
	size_t n_rows = t->n_cols ? t->n_cells / t->n_cols : 0;
	const char *row[RIG_TABLE_MAX_COLS];
	int rc = 0;
	for (size_t c = 0; c < t->n_cols; c++) {
		size_t w = width_of(t->headers[c]);
		if (w > t->width[c])
			t->width[c] = w;
	}
	const char *p = t->cells.data;
	for (size_t i = 0; i < n_rows * t->n_cols; i++) {
		size_t w = width_of(p);
		if (w > t->width[i % t->n_cols])
			t->width[i % t->n_cols] = w;
		p += strlen(p) + 1;
	}
	if (!t->header_done) {
		t->header_done = true;
		rc = print_row(t, f, t->headers);
	}
	p = t->cells.data;
	for (size_t r = 0; r < n_rows && rc == 0; r++) {
		for (size_t c = 0; c < t->n_cols; c++) {
			row[c] = p;
			p += strlen(p) + 1;
		}
		rc = print_row(t, f, row);
	}
	if (rc != 0) {
		rig_bytes_clear(&t->cells);
		t->n_cells = 0;
		return rc;
	}
	/* Keep the cells of an incomplete row for the next flush. */
	rig_bytes_consume(&t->cells, p ? (size_t)(p - t->cells.data) : 0);
	t->n_cells -= n_rows * t->n_cols;
	return 0;
}
