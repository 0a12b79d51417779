/* How mesh-data prints the items of its pages: per collection and per format
 * (table, json, ndjson, csv), one page at a time so --all can stream. Fetching
 * pages, following tokens and the command line live in mesh_data.c.
 *
 * The collection names are the server's (its binding kinds' rows); the client
 * learns them from openapi.yaml's MeshDataKind (clients/mesh_kinds.h, written
 * at build time). The columns below are presentation only: a collection
 * without a format here prints one row per item with the first item's fields
 * as columns.
 *
 * CSV columns:   vertices  vertexIndex,x,y
 *                triangles triangleIndex,i,j,k
 *                joints    jointId,layerId,a,b,c,d,e,f   (bind = [a..f])
 *                weights   vertexIndex,jointId,weight    (one row per influence)
 *                keyframes keyIndex,frame,interp,ease,vertexIndex,x,y
 *                          (one row per key vertex: an item is a piece of a key)
 *                pins      pinIndex,id,x,y,vertexIndex,rotation,stiffness,scale,
 *                          overlap,overlapExtent,keys  (keys: the pin's keys per
 *                          channel as one compact JSON cell, empty without keys;
 *                          a table shows "rotation 2, overlap 1")
 *                pinWeights vertexIndex,pinId,weight   (one row per pin weight)
 * Numbers print with the fewest digits that read back as the same double.
 */
#ifndef RIG_MESH_FORMAT_H
#define RIG_MESH_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "clients/table.h"

enum rig_mesh_format { RIG_MESH_TABLE, RIG_MESH_JSON, RIG_MESH_NDJSON, RIG_MESH_CSV };

struct rig_mesh_kind_format;

struct rig_mesh_printer {
	enum rig_mesh_format format;
	const char *kind;                           /* the collection, borrowed */
	const struct rig_mesh_kind_format *columns; /* its format; NULL: the first item's fields */
	FILE *out;                                  /* borrowed */
	struct rig_table table;
	bool started; /* the table or CSV header is set up */
	size_t n_cols;
	const char *cols[RIG_TABLE_MAX_COLS]; /* column names; borrowed from the first item for
						 a kind without columns of its own */
	json_t *first_item;                   /* a reference keeping those names alive */
	size_t n_items;                       /* items printed so far */
	size_t n_pages;
};

/* Sets up a printer of the items of collection kind (borrowed) in format to
 * out (borrowed). Release with rig_mesh_printer_release. */
void rig_mesh_printer_init(struct rig_mesh_printer *p, enum rig_mesh_format format,
			   const char *kind, FILE *out);

/* Frees the table and the kept item. */
void rig_mesh_printer_release(struct rig_mesh_printer *p);

/* Prints one page: its items in the printer's format, or for json the page
 * itself on one line (raw, the body as received, is used when it is already a
 * single line). Borrows page. Returns 0, or -1 when writing fails or memory
 * runs out. */
int rig_mesh_print_page(struct rig_mesh_printer *p, json_t *page, const char *raw, size_t raw_len);

/* Finishes the output after the last page printed (last, borrowed): a CSV
 * header when no item came, and for tables a footer line saying how many
 * items of how many, the shot version and how to get the next page. Returns 0
 * or -1 when writing fails. */
int rig_mesh_print_end(struct rig_mesh_printer *p, json_t *last, bool more);

#endif
