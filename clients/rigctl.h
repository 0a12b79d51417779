/* What the rigctl command files share: the parsed command line, the options
 * and the commands they apply to, and small helpers to call the API and print
 * results. rigctl.c parses and dispatches; rigctl_resources.c (projects,
 * shots, layers, receipts), rigctl_edit.c and rigctl_frames.c run commands.
 */
#ifndef RIG_CTL_H
#define RIG_CTL_H

#include <jansson.h>
#include <stdbool.h>

#include "args.h"
#include "http_client.h"

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
};

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

/* Commands. Each returns an exit code and prints its own failures. */
int rig_ctl_projects(struct rig_ctl *c);
int rig_ctl_shots(struct rig_ctl *c);
int rig_ctl_layers(struct rig_ctl *c);
int rig_ctl_receipts(struct rig_ctl *c);
int rig_ctl_edit(struct rig_ctl *c);
int rig_ctl_frames(struct rig_ctl *c);

/* Prints a receipt (table format) as a short summary: versions, ops, changed
 * layers; dry runs say nothing was written. Returns an exit code. */
int rig_ctl_print_receipt(const json_t *receipt);

/* Prints layers (a shot's "layers" array, parents before children, with depth
 * and children) as an indented tree. Returns an exit code. */
int rig_ctl_print_tree(const json_t *layers);

#endif
