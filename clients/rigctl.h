/* What the rigctl command files share: the parsed command line, the options
 * and the commands they apply to, and small helpers to call the API, page
 * through lists and print results. rigctl.c parses and dispatches;
 * rigctl_resources.c (projects, shots, layers, receipts), rigctl_edit.c,
 * rigctl_frames.c, rigctl_plans.c, rigctl_locks.c, rigctl_diff.c and
 * rigctl_history.c and rigctl_constraints.c run commands; rigctl_help.c
 * holds the --help pages.
 */
#ifndef RIG_CTL_H
#define RIG_CTL_H

#include <jansson.h>
#include <stdbool.h>

#include "clients/args.h"
#include "clients/http_client.h"
#include "clients/table.h"
#include "clients/url.h"

#define RIG_CTL_PROG "rigctl"

/* Commands (and verbs) as bits, so an option can say where it applies. */
enum rig_ctl_cmd {
	RIG_CTL_PROJECTS_LIST = 1u << 0,
	RIG_CTL_PROJECTS_CREATE = 1u << 1,
	RIG_CTL_PROJECTS_SHOW = 1u << 2,
	RIG_CTL_PROJECTS_DELETE = 1u << 3,
	RIG_CTL_SHOTS_LIST = 1u << 4,
	RIG_CTL_SHOTS_CREATE = 1u << 5,
	RIG_CTL_SHOTS_SHOW = 1u << 6,
	RIG_CTL_SHOTS_DELETE = 1u << 7,
	RIG_CTL_LAYERS = 1u << 8,
	RIG_CTL_EDIT = 1u << 9,
	RIG_CTL_RECEIPTS = 1u << 10,
	RIG_CTL_FRAMES = 1u << 11,
	RIG_CTL_PLAN_CREATE = 1u << 12,
	RIG_CTL_PLAN_SHOW = 1u << 13,
	RIG_CTL_PLAN_LIST = 1u << 14,
	RIG_CTL_PLAN_VALIDATE = 1u << 15,
	RIG_CTL_PLAN_REVISE = 1u << 16,
	RIG_CTL_PLAN_APPLY = 1u << 17,
	RIG_CTL_PLAN_DELETE = 1u << 18,
	RIG_CTL_LOCK_ACQUIRE = 1u << 19,
	RIG_CTL_LOCK_RENEW = 1u << 20,
	RIG_CTL_LOCK_RELEASE = 1u << 21,
	RIG_CTL_LOCK_LIST = 1u << 22,
	RIG_CTL_DIFF = 1u << 23,
	RIG_CTL_REVERT = 1u << 24,
	RIG_CTL_CONSTRAINTS = 1u << 25,
	RIG_CTL_CONSTRAINT_PUT = 1u << 26,
	RIG_CTL_CONSTRAINT_DELETE = 1u << 27,
};

/* The most positional words a command line may hold (lock acquire takes up
 * to 1000 layer ids, the server's limit, after "lock acquire"). */
#define RIG_CTL_MAX_WORDS 1002

/* Options, indexing rig_ctl.opts. */
enum rig_ctl_opt {
	RIG_CTL_O_URL,
	RIG_CTL_O_ACTOR,
	RIG_CTL_O_FORMAT,
	RIG_CTL_O_HELP,
	RIG_CTL_O_ID,
	RIG_CTL_O_PROJECT,
	RIG_CTL_O_FPS,
	RIG_CTL_O_FRAME_START,
	RIG_CTL_O_FRAME_END,
	RIG_CTL_O_IF_MATCH,
	RIG_CTL_O_IDEMPOTENCY_KEY,
	RIG_CTL_O_SHOT,
	RIG_CTL_O_LAYER,
	RIG_CTL_O_EXPECTED_VERSION,
	RIG_CTL_O_DRY_RUN,
	RIG_CTL_O_ALL,
	RIG_CTL_O_PAGE_SIZE,
	RIG_CTL_O_FROM,
	RIG_CTL_O_TO,
	RIG_CTL_O_STEP,
	RIG_CTL_O_SPACE,
	RIG_CTL_O_OUT,
	RIG_CTL_O_NO_PROGRESS,
	RIG_CTL_O_TITLE,
	RIG_CTL_O_BASE_VERSION,
	RIG_CTL_O_PIN,
	RIG_CTL_O_UNPIN,
	RIG_CTL_O_PLAN_VERSION,
	RIG_CTL_O_LOCK_ID,
	RIG_CTL_O_FENCING_TOKEN,
	RIG_CTL_O_TTL,
	RIG_CTL_O_MAX_BYTES,
	RIG_CTL_O_FORCE,
	RIG_CTL_O_CHECK_FRAMES,
	/* rigctl constraints / constraint put|delete */
	RIG_CTL_O_VERSION,
	RIG_CTL_O_JSON,
	RIG_CTL_O_CHAIN,
	RIG_CTL_O_TARGET,
	RIG_CTL_O_POLE,
	RIG_CTL_O_BEND_POSITIVE,
	RIG_CTL_O_BEND_NEGATIVE,
	RIG_CTL_O_MIX,
	RIG_CTL_O_SOFTNESS,
	RIG_CTL_O_STRETCH,
	RIG_CTL_O_COMPRESS,
	RIG_CTL_O_ORDER,
	RIG_CTL_O_TIP_LENGTH,
	RIG_CTL_O_COUNT
};

/* How results print (--format; frames uses --format for its file format). */
enum rig_ctl_format { RIG_CTL_TABLE, RIG_CTL_JSON, RIG_CTL_NDJSON };

/* One run of rigctl, owned by main. */
struct rig_ctl {
	struct rig_http http;
	enum rig_ctl_format format;
	enum rig_ctl_cmd cmd;
	const struct rig_opt *opts; /* RIG_CTL_O_COUNT entries, borrowed from main */
	const char *const *args;    /* positional words after the command and verb */
	size_t n_args;
};

/* The value of option o, or NULL when it was not given. */
const char *rig_ctl_opt(const struct rig_ctl *c, enum rig_ctl_opt o);

/* Whether flag o was given. */
bool rig_ctl_flag(const struct rig_ctl *c, enum rig_ctl_opt o);

/* Prints "rigctl: <message>" and a hint to --help on stderr. Returns
 * RIG_EXIT_USAGE. */
int rig_ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads option o as a whole number of at least min_value into *out when it
 * was given (*out unchanged otherwise). Returns RIG_EXIT_OK, or
 * RIG_EXIT_USAGE with the problem printed. */
int rig_ctl_int_opt(const struct rig_ctl *c, enum rig_ctl_opt o, long long min_value,
		    long long *out);

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
	const char *headers[8];
	bool right[8];
	/* Adds the cells of one item to t. */
	void (*cells)(struct rig_table *t, json_t *item);
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

/* The help pages (rigctl_help.c): the overview 'rigctl --help' prints, and
 * one page per command for 'rigctl COMMAND [VERB] --help', named by the rows
 * of rigctl.c's command table. */
extern const char rig_ctl_help_overview[], rig_ctl_help_projects[], rig_ctl_help_shots[],
	rig_ctl_help_layers[], rig_ctl_help_edit[], rig_ctl_help_revert[], rig_ctl_help_receipts[],
	rig_ctl_help_frames[], rig_ctl_help_plan[], rig_ctl_help_lock[], rig_ctl_help_diff[],
	rig_ctl_help_constraints[], rig_ctl_help_constraint[];

/* Prints a receipt (table format) as a short summary: versions, the plan it
 * applied (if any), ops, changed layers; dry runs say nothing was written.
 * Returns an exit code. */
int rig_ctl_print_receipt(const json_t *receipt);

/* Prints ops (an array of op objects or receipt entries) as "ops" lines of
 * index, op name and layer id, under the 8-column labels of the receipt
 * printout; "ops      -" when empty. Output errors show in ferror(stdout). */
void rig_ctl_print_ops(const json_t *ops);

/* Prints layers (a shot's "layers" array, parents before children, with depth
 * and children) as an indented tree. Returns an exit code. */
int rig_ctl_print_tree(const json_t *layers);

#endif
