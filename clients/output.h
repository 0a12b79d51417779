/* Text output shared by the clients: numbers that parse back to the same
 * double, a compact JSON writer that uses them, cell text for tables and CSV,
 * and CSV field quoting. Layout of tables lives in table.h; what to print for
 * each kind of item lives with each program.
 */
#ifndef RIG_OUTPUT_H
#define RIG_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "clients/bytes.h"

/* Room for any rig_out_double result. */
#define RIG_OUT_DOUBLE_MAX 32

/* Formats v with the fewest significant digits (15, 16 or 17) that strtod
 * reads back as exactly v, the way the server writes numbers, so 0.1 prints
 * as "0.1" and 1/3 as "0.33333333333333331". Writes at most
 * RIG_OUT_DOUBLE_MAX bytes including the NUL; returns the length. */
int rig_out_double(char out[RIG_OUT_DOUBLE_MAX], double v);

/* Appends v as compact JSON: insertion order of objects, reals through
 * rig_out_double (with ".0" added to integral reals so they stay reals),
 * strings escaped as the server escapes them. Returns 0 or -1 (out of memory;
 * b may hold a partial document). */
int rig_out_json(struct rig_bytes *b, const json_t *v);

/* Writes v as one line of compact JSON to f. Returns 0, or -1 when memory
 * runs out or the write fails. */
int rig_out_json_line(FILE *f, const json_t *v);

/* Appends the text of one table or CSV cell for v: a string as is, a number
 * through rig_out_double (integral reals without ".0"), true/false, empty for
 * null or a missing value, compact JSON for arrays and objects (their reals
 * also without ".0"). Returns 0 or -1 (out of memory). */
int rig_out_cell(struct rig_bytes *b, const json_t *v);

/* Writes one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or
 * LF, with quotes doubled. Returns 0 or -1 on a write error. */
int rig_out_csv_field(FILE *f, const char *text);

#endif
