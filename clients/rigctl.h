/* What the rigctl command files share: the parsed command line (its options
 * are rigctl_options.h's rows), and small helpers to call the API, page
 * through lists and print results. rigctl.c parses and dispatches;
 * rigctl_resources.c (projects, shots, layers, receipts), rigctl_edit.c,
 * rigctl_frames.c, rigctl_plans.c, rigctl_locks.c, rigctl_diff.c and
 * rigctl_history.c, rigctl_constraints.c, rigctl_pins.c, rigctl_authoring.c and
 * rigctl_interchange.c run commands; rigctl_help.c
 * holds the --help pages.
 */
#ifndef RIG_CTL_H
#define RIG_CTL_H

#include <jansson.h>
#include <stdbool.h>

#include "clients/args.h"
#include "clients/http_client.h"
#include "clients/rigctl_options.h"
#include "clients/table.h"
#include "clients/url.h"

#define RIG_CTL_PROG "rigctl"

/* The most positional words a command line may hold (lock acquire takes up
 * to 1000 layer ids, the server's limit, after "lock acquire"). */
#define RIG_CTL_MAX_WORDS 1002

/* How results print: the words of the --format row, in order (frames reads
 * its own --format, the file format). */
enum rig_ctl_format { RIG_CTL_TABLE, RIG_CTL_JSON, RIG_CTL_NDJSON };

/* One run of rigctl, owned by main. */
struct rig_ctl {
	struct rig_http http;
	enum rig_ctl_format format;
	rig_arg_cmds cmd;
	const struct rig_arg *opts; /* RIG_CTL_O_COUNT values, settled; borrowed from main */
	const char *const *args;    /* positional words after the command and verb */
	size_t n_args;
};

/* The value of option o as given (flag or variable), or NULL when it was not. */
const char *rig_ctl_opt(const struct rig_ctl *c, enum rig_ctl_opt o);

/* Whether option o was given. */
bool rig_ctl_flag(const struct rig_ctl *c, enum rig_ctl_opt o);

/* The value of INT option o, checked against its row; its default, else 0,
 * when it was not given. */
long long rig_ctl_int(const struct rig_ctl *c, enum rig_ctl_opt o);

/* The value of NUMBER option o, checked against its row; its default, else
 * 0, when it was not given. */
double rig_ctl_number(const struct rig_ctl *c, enum rig_ctl_opt o);

/* Prints "rigctl: <message>" and a hint to --help on stderr. Returns
 * RIG_EXIT_USAGE. */
int rig_ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads option o's value, n numbers separated by commas (its row's metavar,
 * "X,Y"), into out[n]. Returns RIG_EXIT_OK, or RIG_EXIT_USAGE with "--o
 'text' is not two numbers X,Y" printed (a number is finite, strtod's
 * syntax). */
int rig_ctl_numbers(double *out, size_t n, const struct rig_ctl *c, enum rig_ctl_opt o);

/* Option o's text as a JSON string (a new reference), or NULL with a usage
 * error printed (not valid UTF-8). */
json_t *rig_ctl_text_json(const struct rig_ctl *c, enum rig_ctl_opt o);

/* Sets body's expectedVersion to --expected-version, when given. Returns
 * RIG_EXIT_OK, or RIG_EXIT_FAIL with the failure (out of memory) printed. */
int rig_ctl_expected_version(const struct rig_ctl *c, json_t *body);

/* Reads --lock-id and --fencing-token (both or neither) into body as lockId
 * and fencingToken. Returns RIG_EXIT_OK, or RIG_EXIT_USAGE with the problem
 * printed (body then unchanged). */
int rig_ctl_fence_opts(const struct rig_ctl *c, json_t *body);

/* Appends "/v1/<collection>[/<id>][<suffix>]" to u (initialised, empty; id
 * percent-encoded, suffix literal) and returns its text, borrowed from u
 * (NULL when memory ran out). */
const char *rig_ctl_target(struct rig_url *u, const char *collection, const char *id,
			   const char *suffix);

/* A write: POSTs body to u (adding ?dryRun=true when --dry-run was given,
 * and checkFrames: true to body with --check-frames) under
 * --idempotency-key, and prints the receipt as --format asks. Returns the
 * exit code. */
int rig_ctl_post_write(struct rig_ctl *c, struct rig_url *u, json_t *body);

/* Sends method target with body (serialised exactly, may be NULL) and
 * idempotency_key/if_match headers (may be NULL). On a 2xx answer stores the
 * parsed JSON body in *out (a new reference; NULL when out is NULL or the body
 * is empty) and returns RIG_EXIT_OK; otherwise prints what went wrong and
 * returns RIG_EXIT_FAIL. */
int rig_ctl_call(struct rig_ctl *c, const char *method, const char *target, const json_t *body,
		 const char *idempotency_key, const char *if_match, json_t **out);

/* Prints v on one line as compact JSON (json and ndjson formats). Returns
 * RIG_EXIT_OK or RIG_EXIT_FAIL when stdout cannot be written. */
int rig_ctl_print_json(const json_t *v);

/* Prints the members of o as aligned "name  value" lines (table format),
 * skipping those named in skip (NULL-terminated, may be NULL). Returns
 * RIG_EXIT_OK or RIG_EXIT_FAIL. */
int rig_ctl_print_fields(const json_t *o, const char *const *skip);

/* Prints o for the chosen format: fields for table, one JSON line otherwise. */
int rig_ctl_print_object(const struct rig_ctl *c, const json_t *o);

/* How the items of a list print as a table. */
struct rig_ctl_list_view {
	const char *items_name; /* the array member of a page ("receipts") */
	size_t n_cols;
	const char *headers[12];
	bool right[12];
	/* Adds the cells of one item to t. */
	void (*cells)(struct rig_table *t, json_t *item);
	const char *noun; /* what the items are called in a table's notes; NULL: items_name */
};

/* Adds the cell for item's member key to t: its text, "-" when missing or
 * null. */
void rig_ctl_cell(struct rig_table *t, json_t *item, const char *key);

/* Lists path (an encoded target, may be NULL when memory ran out) page by
 * page, following nextPageToken when all, else printing the first page only;
 * --page-size is passed on. json prints one array of the items, ndjson one
 * item per line, table the view's columns (and a hint when pages remain).
 * Works for unpaged lists too (one answer without nextPageToken). Returns an
 * exit code. */
int rig_ctl_list_pages(struct rig_ctl *c, const char *path, const struct rig_ctl_list_view *v,
		       bool all);

/* Appends all of the file at path ("-": stdin) to out (initialised; the
 * caller releases it). Returns RIG_EXIT_OK, or RIG_EXIT_USAGE with "cannot
 * read ..." printed (out may then hold part of the file). */
int rig_ctl_read_file(struct rig_bytes *out, const char *path);

/* Reads an ops FILE (path, "-" for stdin): {"ops": [...], ...} as is, a bare
 * array of ops (wrapped as {"ops": [...]}) or one op object. Stores a new
 * reference to that object in *out and returns RIG_EXIT_OK, or returns
 * RIG_EXIT_USAGE with the problem printed (unreadable, not JSON, no ops). */
int rig_ctl_read_ops(json_t **out, const char *path);

/* Commands. Each returns an exit code and prints its own failures. */
int rig_ctl_projects(struct rig_ctl *c);
int rig_ctl_shots(struct rig_ctl *c);
int rig_ctl_layers(struct rig_ctl *c);
int rig_ctl_receipts(struct rig_ctl *c);
int rig_ctl_edit(struct rig_ctl *c);
int rig_ctl_frames(struct rig_ctl *c);
int rig_ctl_plans(struct rig_ctl *c);
int rig_ctl_locks(struct rig_ctl *c);
int rig_ctl_diff(struct rig_ctl *c);
int rig_ctl_revert(struct rig_ctl *c); /* rigctl_history.c */
int rig_ctl_constraints(struct rig_ctl *c);
int rig_ctl_pins(struct rig_ctl *c);
int rig_ctl_authoring(struct rig_ctl *c); /* tessellate, weights, rig, bones */
int rig_ctl_import(struct rig_ctl *c);    /* rigctl_interchange.c */
int rig_ctl_export(struct rig_ctl *c);

/* A help page (rigctl_help.c): the text above the options of its commands,
 * which rigctl.c prints from rig_ctl_options, and the text below them. */
struct rig_ctl_help {
	const char *about;    /* usage, synopsis, what it does */
	const char *examples; /* exit codes, examples, where to read more */
};

/* The help pages: the overview 'rigctl --help' prints (the options for
 * every command between its parts), and one page per command for 'rigctl
 * COMMAND [VERB] --help', named by the rows of rigctl.c's command table. */
extern const struct rig_ctl_help rig_ctl_help_overview, rig_ctl_help_projects, rig_ctl_help_shots,
	rig_ctl_help_layers, rig_ctl_help_edit, rig_ctl_help_revert, rig_ctl_help_receipts,
	rig_ctl_help_frames, rig_ctl_help_plan, rig_ctl_help_lock, rig_ctl_help_diff,
	rig_ctl_help_constraints, rig_ctl_help_constraint, rig_ctl_help_pin,
	rig_ctl_help_tessellate, rig_ctl_help_weights, rig_ctl_help_rig, rig_ctl_help_bones,
	rig_ctl_help_import, rig_ctl_help_export;

/* Prints a receipt (table format) as a short summary: versions, the plan it
 * applied (if any), ops, changed layers; dry runs say nothing was written.
 * Returns an exit code. */
int rig_ctl_print_receipt(const json_t *receipt);

/* Prints ops (an array of op objects or receipt entries) as "ops" lines of
 * index, op name and layer id, under the 8-column labels of the receipt
 * printout; "ops      -" when empty. A receipt entry's expandedOps follow it
 * as "+ op layer" lines, its changedVertices as their count. Output errors
 * show in ferror(stdout). */
void rig_ctl_print_ops(const json_t *ops);

/* Prints layers (a shot's "layers" array, parents before children, with depth
 * and children) as an indented tree. Returns an exit code. */
int rig_ctl_print_tree(const json_t *layers);

#endif
