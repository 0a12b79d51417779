/* rigctl's options: the one table (RIG_CTL_OPTIONS) from which its parsing
 * with bounds, its RIGD_* variables, its defaults, the options part of every
 * --help page and the option table of clients/README.md (`rigctl
 * --options-markdown`, compared by tests/e2e/test_clients_options_table.py)
 * come. Each row is an id and a struct rig_arg_spec (clients/args.h); its
 * scope names the commands it applies to, as bits (RIG_CTL_EDIT, ...). Two
 * rows may share a name when their commands differ (`--format`, `--from`,
 * `--to`, `--id`): the command picks the row. Which command a command line names is
 * rigctl.c's.
 */
#ifndef RIG_CTL_OPTIONS_H
#define RIG_CTL_OPTIONS_H

#include "clients/args.h"
#include "clients/http_client.h"
#include "clients/interps.h" /* openapi.yaml's Interp, written at build time */

/* Commands (and verbs) as bits, so an option can say where it applies (more than 32:
 * rig_arg_cmds, not an enum). */
#define RIG_CTL_PROJECTS_LIST (1ull << 0)
#define RIG_CTL_PROJECTS_CREATE (1ull << 1)
#define RIG_CTL_PROJECTS_SHOW (1ull << 2)
#define RIG_CTL_PROJECTS_DELETE (1ull << 3)
#define RIG_CTL_SHOTS_LIST (1ull << 4)
#define RIG_CTL_SHOTS_CREATE (1ull << 5)
#define RIG_CTL_SHOTS_SHOW (1ull << 6)
#define RIG_CTL_SHOTS_DELETE (1ull << 7)
#define RIG_CTL_LAYERS (1ull << 8)
#define RIG_CTL_EDIT (1ull << 9)
#define RIG_CTL_RECEIPTS (1ull << 10)
#define RIG_CTL_FRAMES (1ull << 11)
#define RIG_CTL_PLAN_CREATE (1ull << 12)
#define RIG_CTL_PLAN_SHOW (1ull << 13)
#define RIG_CTL_PLAN_LIST (1ull << 14)
#define RIG_CTL_PLAN_VALIDATE (1ull << 15)
#define RIG_CTL_PLAN_REVISE (1ull << 16)
#define RIG_CTL_PLAN_APPLY (1ull << 17)
#define RIG_CTL_PLAN_DELETE (1ull << 18)
#define RIG_CTL_LOCK_ACQUIRE (1ull << 19)
#define RIG_CTL_LOCK_RENEW (1ull << 20)
#define RIG_CTL_LOCK_RELEASE (1ull << 21)
#define RIG_CTL_LOCK_LIST (1ull << 22)
#define RIG_CTL_DIFF (1ull << 23)
#define RIG_CTL_REVERT (1ull << 24)
#define RIG_CTL_CONSTRAINTS (1ull << 25)
#define RIG_CTL_CONSTRAINT_PUT (1ull << 26)
#define RIG_CTL_CONSTRAINT_DELETE (1ull << 27)
#define RIG_CTL_PIN_ADD (1ull << 28)
#define RIG_CTL_PIN_MOVE (1ull << 29)
#define RIG_CTL_PIN_KEY (1ull << 30)
#define RIG_CTL_PIN_DELETE (1ull << 31)
#define RIG_CTL_PIN_LIST (1ull << 32)
#define RIG_CTL_TESSELLATE (1ull << 33)
#define RIG_CTL_WEIGHTS_AUTO (1ull << 34)
#define RIG_CTL_WEIGHTS_PAINT (1ull << 35)
#define RIG_CTL_WEIGHTS_SET (1ull << 36)
#define RIG_CTL_RIG_AUTO (1ull << 37)
#define RIG_CTL_BONES_SUGGEST (1ull << 38)
#define RIG_CTL_IMPORT (1ull << 39)
#define RIG_CTL_EXPORT (1ull << 40)

/* openapi.yaml's PinChannel, the channels of a puppet pin (the enum header
 * script takes plain names only, so they are spelled here;
 * tests/e2e/test_clients_pins.py compares them with the contract). */
#define RIG_CTL_PIN_CHANNELS "position.x", "position.y", "rotation", "stiffness", "scale", "overlap"

/* openapi.yaml's inline enums the authoring commands take (issue 25):
 * TessellateRequest's mode, LayerMeshGenerateOp's binding,
 * LayerSkinWeightsAutoOp's method and LayerSkinWeightsPaintOp's mode;
 * tests/e2e/test_clients_authoring.py compares them with the contract. */
#define RIG_CTL_TESSELLATE_MODES "grid", "silhouette"
#define RIG_CTL_MESH_BINDINGS "skin", "mesh", "puppet"
#define RIG_CTL_WEIGHT_METHODS "segment", "nearestJoint", "harmonic"
#define RIG_CTL_PAINT_MODES "add", "subtract", "smooth", "set"

/* The sets of commands the rows name. */
#define RIG_CTL_INTERCHANGE (RIG_CTL_IMPORT | RIG_CTL_EXPORT)
#define RIG_CTL_PIN_WRITES                                                                         \
	(RIG_CTL_PIN_ADD | RIG_CTL_PIN_MOVE | RIG_CTL_PIN_KEY | RIG_CTL_PIN_DELETE)
#define RIG_CTL_PINS (RIG_CTL_PIN_WRITES | RIG_CTL_PIN_LIST)
#define RIG_CTL_PIN_KEYS (RIG_CTL_PIN_MOVE | RIG_CTL_PIN_KEY)
#define RIG_CTL_CREATES (RIG_CTL_PROJECTS_CREATE | RIG_CTL_SHOTS_CREATE)
#define RIG_CTL_WEIGHTS (RIG_CTL_WEIGHTS_AUTO | RIG_CTL_WEIGHTS_PAINT | RIG_CTL_WEIGHTS_SET)
#define RIG_CTL_WEIGHT_JOINT (RIG_CTL_WEIGHTS_PAINT | RIG_CTL_WEIGHTS_SET)
#define RIG_CTL_TESSELLATES (RIG_CTL_TESSELLATE | RIG_CTL_RIG_AUTO) /* a TessellateRequest */
#define RIG_CTL_AUTO_WEIGHTS (RIG_CTL_WEIGHTS_AUTO | RIG_CTL_RIG_AUTO)
#define RIG_CTL_SUGGESTS (RIG_CTL_BONES_SUGGEST | RIG_CTL_RIG_AUTO)
/* tessellate is an edit only with --shot (rigctl_authoring.c checks) */
#define RIG_CTL_AUTHORING                                                                          \
	(RIG_CTL_TESSELLATE | RIG_CTL_WEIGHTS | RIG_CTL_RIG_AUTO | RIG_CTL_BONES_SUGGEST)
#define RIG_CTL_CONSTRAINT_WRITES (RIG_CTL_CONSTRAINT_PUT | RIG_CTL_CONSTRAINT_DELETE)
#define RIG_CTL_PLAN_CONTENT (RIG_CTL_PLAN_CREATE | RIG_CTL_PLAN_REVISE)
#define RIG_CTL_WRITES                                                                             \
	(RIG_CTL_CREATES | RIG_CTL_PROJECTS_DELETE | RIG_CTL_SHOTS_DELETE | RIG_CTL_EDIT |         \
	 RIG_CTL_REVERT | RIG_CTL_PLAN_CONTENT | RIG_CTL_PLAN_APPLY | RIG_CTL_PLAN_DELETE |        \
	 RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_RENEW | RIG_CTL_LOCK_RELEASE |                        \
	 RIG_CTL_CONSTRAINT_WRITES | RIG_CTL_PIN_WRITES | RIG_CTL_AUTHORING | RIG_CTL_IMPORT)
#define RIG_CTL_EDITS                                                                              \
	(RIG_CTL_EDIT | RIG_CTL_REVERT | RIG_CTL_CONSTRAINT_WRITES | RIG_CTL_PIN_WRITES |          \
	 RIG_CTL_AUTHORING | RIG_CTL_IMPORT)
#define RIG_CTL_FENCED (RIG_CTL_EDITS | RIG_CTL_PLAN_APPLY)
#define RIG_CTL_PER_SHOT                                                                           \
	(RIG_CTL_LAYERS | RIG_CTL_EDIT | RIG_CTL_RECEIPTS | RIG_CTL_FRAMES | RIG_CTL_PLAN_CREATE | \
	 RIG_CTL_PLAN_LIST | RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_LIST | RIG_CTL_PINS |             \
	 RIG_CTL_AUTHORING | RIG_CTL_INTERCHANGE)
#define RIG_CTL_LISTS                                                                              \
	(RIG_CTL_PROJECTS_LIST | RIG_CTL_SHOTS_LIST | RIG_CTL_RECEIPTS | RIG_CTL_PLAN_LIST |       \
	 RIG_CTL_CONSTRAINTS | RIG_CTL_PIN_LIST)

#define RIG_CTL_VERSION_NUMBER RIG_ARG_AT_LEAST(0), .what = "a version number"

/* X(ID, row...): the options in the order of the README's table. */
#define RIG_CTL_OPTIONS(X)                                                                         \
	/* every command */                                                                        \
	X(URL, RIG_HTTP_URL_OPTION)                                                                \
	X(ACTOR, .name = "actor", .metavar = "NAME", .min = 1, .max = 128, .env = "RIGD_ACTOR",    \
	  .help = "sent as `X-Rigd-Actor`, which only a server run with `--auth off` reads; "      \
		  "otherwise the actor is the token's name")                                       \
	X(FORMAT, .name = "format", .shape = RIG_ARG_CHOICE,                                       \
	  .choices = RIG_ARG_CHOICES("table", "json", "ndjson"),                                   \
	  .def_doc = "`table` on a terminal, else `json`",                                         \
	  .help = "how results print: aligned tables, one JSON document (a list is one array) "    \
		  "or one JSON object per line; `frames` reads `--format` as its file format")     \
	X(HELP, .name = "help", .shape = RIG_ARG_FLAG,                                             \
	  .help = "this text, also `-h`; `rigctl COMMAND --help` (or `rigctl COMMAND VERB "        \
		  "--help`): that command in detail, with examples")                               \
	/* writes */                                                                               \
	X(IDEMPOTENCY_KEY, .name = "idempotency-key", .metavar = "K", .scope = RIG_CTL_WRITES,     \
	  .help = "the server answers a retry with the same key with the first response "          \
		  "instead of applying the write twice")                                           \
	X(EXPECTED_VERSION, .name = "expected-version", .metavar = "N", RIG_CTL_VERSION_NUMBER,    \
	  .scope = RIG_CTL_EDITS,                                                                  \
	  .help = "apply only while the shot is at version N; else `VERSION_CONFLICT` with the "   \
		  "current version")                                                               \
	X(DRY_RUN, .name = "dry-run", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_EDITS,               \
	  .help = "check the write and print the receipt it would produce; nothing is written")    \
	X(CHECK_FRAMES, .name = "check-frames", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_FENCED,    \
	  .help = "sends `checkFrames: true`: the server evaluates the shot's frames before it "   \
		  "commits and refuses a write that would break one (each failing layer and "      \
		  "frame is an error)")                                                            \
	X(LOCK_ID, .name = "lock-id", .metavar = "L", .scope = RIG_CTL_FENCED,                     \
	  .help = "with `--fencing-token`: prove a lock is still held (else `LOCK_LOST`); see "    \
		  "`rigctl lock --help`")                                                          \
	X(FENCING_TOKEN, .name = "fencing-token", .metavar = "T", RIG_ARG_AT_LEAST(1),             \
	  .scope = RIG_CTL_FENCED, .help = "the lock's fencing token, with `--lock-id`")           \
	/* resources */                                                                            \
	X(ID, .name = "id", .metavar = "ID", .scope = RIG_CTL_CREATES | RIG_CTL_PLAN_CREATE,       \
	  .def_doc = "the server picks one",                                                       \
	  .help = "the id of the project, shot or plan created")                                   \
	X(PROJECT, .name = "project", .metavar = "ID",                                             \
	  .scope = RIG_CTL_SHOTS_LIST | RIG_CTL_SHOTS_CREATE, .required = RIG_ARG_EVERY,           \
	  .help = "the project")                                                                   \
	X(FPS, .name = "fps", .metavar = "N", .shape = RIG_ARG_NUMBER,                             \
	  .scope = RIG_CTL_SHOTS_CREATE, .def_doc = "the server's, 24",                            \
	  .help = "the shot's frames per second")                                                  \
	X(FRAME_START, .name = "frame-start", .metavar = "A", .shape = RIG_ARG_NUMBER,             \
	  .scope = RIG_CTL_SHOTS_CREATE, .def_doc = "the server's, 0",                             \
	  .help = "the shot's first frame")                                                        \
	X(FRAME_END, .name = "frame-end", .metavar = "B", .shape = RIG_ARG_NUMBER,                 \
	  .scope = RIG_CTL_SHOTS_CREATE, .def_doc = "the server's, 100",                           \
	  .help = "the shot's last frame")                                                         \
	X(IF_MATCH, .name = "if-match", .metavar = "VERSION", .shape = RIG_ARG_INT,                \
	  .min = LLONG_MIN, .max = LLONG_MAX, .what = "a version number",                          \
	  .scope = RIG_CTL_SHOTS_DELETE,                                                           \
	  .help = "delete only while the shot is at VERSION; else `VERSION_CONFLICT`")             \
	X(SHOT, .name = "shot", .metavar = "ID", .scope = RIG_CTL_PER_SHOT,                        \
	  .required = RIG_CTL_PER_SHOT & ~(RIG_CTL_RECEIPTS | RIG_CTL_TESSELLATE),                 \
	  .help = "the shot; `tessellate` with `--shot` installs the mesh instead of printing it") \
	/* lists */                                                                                \
	X(ALL, .name = "all", .shape = RIG_ARG_FLAG,                                               \
	  .scope = RIG_CTL_RECEIPTS | RIG_CTL_PLAN_LIST,                                           \
	  .help = "every page; without it the first, while the other lists follow every page")     \
	X(PAGE_SIZE, .name = "page-size", .metavar = "N", .scope = RIG_CTL_LISTS,                  \
	  .def_doc = "the server's",                                                               \
	  .help = "items per page, passed to the server as `pageSize`, which checks it")           \
	/* frames */                                                                               \
	X(LAYER, .name = "layer", .metavar = "ID",                                                 \
	  .scope = RIG_CTL_FRAMES | RIG_CTL_PINS | RIG_CTL_AUTHORING,                              \
	  .required = (RIG_CTL_FRAMES | RIG_CTL_PINS | RIG_CTL_AUTHORING) & ~RIG_CTL_TESSELLATE,   \
	  .help = "the bound layer `frames` evaluates; the puppet layer of `pin`; the mesh layer " \
		  "of the authoring commands (`tessellate`: with `--shot`)")                       \
	X(FRAME_FROM, .name = "from", .metavar = "A", .shape = RIG_ARG_NUMBER,                     \
	  .scope = RIG_CTL_FRAMES, .def_doc = "the shot's first frame",                            \
	  .help = "the first frame of the range")                                                  \
	X(FRAME_TO, .name = "to", .metavar = "B", .shape = RIG_ARG_NUMBER,                         \
	  .scope = RIG_CTL_FRAMES, .def_doc = "the shot's last frame",                             \
	  .help = "the last frame of the range")                                                   \
	X(STEP, .name = "step", .metavar = "S", .shape = RIG_ARG_NUMBER, .def = "1",               \
	  .scope = RIG_CTL_FRAMES, .help = "frames between two files")                             \
	X(SPACE, .name = "space", .shape = RIG_ARG_CHOICE,                                         \
	  .choices = RIG_ARG_CHOICES("local", "shot"), .def = "local", .scope = RIG_CTL_FRAMES,    \
	  .help = "vertices in the layer's space or the shot's")                                   \
	X(FILE_FORMAT, .name = "format", .shape = RIG_ARG_CHOICE,                                  \
	  .choices = RIG_ARG_CHOICES("obj", "f32"), .def = "obj", .scope = RIG_CTL_FRAMES,         \
	  .help = "the file format: `DIR/frame_<n>.obj` (face indices local to the file) or "      \
		  "`DIR/frame_<n>.f32` (RIGF, frameCount 1); here `--format` is not the output "   \
		  "format of the other commands")                                                  \
	X(OUT, .name = "out", .metavar = "DIR", .scope = RIG_CTL_FRAMES,                           \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "the folder of the frame files, created when missing")                           \
	X(NO_PROGRESS, .name = "no-progress", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_FRAMES,      \
	  .help = "no progress bar (it shows on stderr when that is a terminal)")                  \
	/* plans */                                                                                \
	X(TITLE, .name = "title", .metavar = "T", .scope = RIG_CTL_PLAN_CONTENT,                   \
	  .help = "the plan's title; `--title ''` clears it")                                      \
	X(BASE_VERSION, .name = "base-version", .metavar = "N", RIG_ARG_AT_LEAST(0),               \
	  .scope = RIG_CTL_PLAN_CONTENT,                                                           \
	  .help = "pin the plan to shot version N: it applies only while the shot is there")       \
	X(PIN, .name = "pin", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_PLAN_CONTENT,                \
	  .help = "pin the plan to the shot's current version")                                    \
	X(UNPIN, .name = "unpin", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_PLAN_REVISE,             \
	  .help = "unpin the plan: it applies to the current version")                             \
	X(PLAN_VERSION, .name = "plan-version", .metavar = "N", RIG_ARG_AT_LEAST(1),               \
	  .scope = RIG_CTL_PLAN_REVISE | RIG_CTL_PLAN_APPLY, .required = RIG_ARG_EVERY,            \
	  .help = "the plan version you reviewed (revise sends it as `If-Match`); another is "     \
		  "`PLAN_VERSION_CONFLICT`")                                                       \
	/* locks */                                                                                \
	X(TTL, .name = "ttl", .metavar = "S", RIG_ARG_AT_LEAST(1),                                 \
	  .scope = RIG_CTL_LOCK_ACQUIRE | RIG_CTL_LOCK_RENEW,                                      \
	  .def_doc = "the server's, 60; renew: the lock's own",                                    \
	  .help = "the lease in seconds; the server takes 1 to 3600")                              \
	/* history */                                                                              \
	X(VERSION_FROM, .name = "from", .metavar = "N", RIG_ARG_AT_LEAST(0),                       \
	  .scope = RIG_CTL_DIFF, .required = RIG_ARG_EVERY, .help = "the older version")           \
	X(VERSION_TO, .name = "to", .metavar = "M", RIG_ARG_AT_LEAST(0), .scope = RIG_CTL_DIFF,    \
	  .required = RIG_ARG_EVERY, .help = "the newer version")                                  \
	X(MAX_BYTES, .name = "max-bytes", .metavar = "B", RIG_ARG_AT_LEAST(1),                     \
	  .scope = RIG_CTL_DIFF, .def_doc = "the server's",                                        \
	  .help = "the size of each page fetched, passed to the server as `maxBytes`")             \
	X(FORCE, .name = "force", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_REVERT,                  \
	  .help = "revert even when a later receipt changed the same layers; else "                \
		  "`REVERT_CONFLICT`, listing them")                                               \
	/* constraints */                                                                          \
	X(VERSION, .name = "version", .metavar = "N", RIG_CTL_VERSION_NUMBER,                      \
	  .scope = RIG_CTL_CONSTRAINTS | RIG_CTL_PIN_LIST | RIG_CTL_EXPORT,                        \
	  .def_doc = "the current version",                                                        \
	  .help = "the shot version to read; `rigctl --version` alone prints rigctl's version")    \
	X(CONSTRAINT_ID, .name = "id", .metavar = "C", .scope = RIG_CTL_CONSTRAINT_WRITES,         \
	  .required = RIG_ARG_EVERY, .help = "the constraint to put or delete")                    \
	X(JSON, .name = "json", .shape = RIG_ARG_FLAG,                                             \
	  .scope = RIG_CTL_CONSTRAINTS | RIG_CTL_CONSTRAINT_WRITES | RIG_CTL_INTERCHANGE,          \
	  .help = "short for `--format json`; `import` and `export`, whose `--format` is the "     \
		  "document's: the JSON output (import: the whole receipt; export: the report)")   \
	X(CHAIN, .name = "chain", .metavar = "A,B,...", .scope = RIG_CTL_CONSTRAINT_PUT,           \
	  .help = "the chain's layer ids, root to tip, comma-separated; required but for "         \
		  "`--kind footstep`")                                                             \
	X(TARGET, .name = "target", .metavar = "T", .scope = RIG_CTL_CONSTRAINT_PUT,               \
	  .help = "the layer the tip reaches for (a chain's head chases); required but for "       \
		  "`--kind footstep`")                                                             \
	X(TIP_LENGTH, .name = "tip-length", .metavar = "X", .shape = RIG_ARG_NUMBER,               \
	  .scope = RIG_CTL_CONSTRAINT_PUT,                                                         \
	  .help = "the tip bone's length along the last layer's local +x axis; the server "        \
		  "requires it")                                                                   \
	X(POLE, .name = "pole", .metavar = "P", .scope = RIG_CTL_CONSTRAINT_PUT,                   \
	  .help = "two layers only: the layer whose origin chooses the elbow's side")              \
	X(BEND_POSITIVE, .name = "bend-positive", .shape = RIG_ARG_FLAG,                           \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, true",                        \
	  .help = "sends `bendPositive: true`: the elbow lies clockwise of root to target")        \
	X(BEND_NEGATIVE, .name = "bend-negative", .shape = RIG_ARG_FLAG,                           \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .help = "sends `bendPositive: false`")                  \
	X(MIX, .name = "mix", .metavar = "X", .shape = RIG_ARG_NUMBER,                             \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, 1",                           \
	  .help = "how much of the solve applies, 0 to 1; a keyed mix: send the op with `rigctl "  \
		  "edit`")                                                                         \
	X(SOFTNESS, .name = "softness", .metavar = "X", .shape = RIG_ARG_NUMBER,                   \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, 0",                           \
	  .help = "the distance over which the chain eases into full extension; keyed: "           \
		  "`rigctl edit`")                                                                 \
	X(STRETCH, .name = "stretch", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_CONSTRAINT_PUT,      \
	  .help = "the bones grow when the target is farther than the chain reaches")              \
	X(COMPRESS, .name = "compress", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_CONSTRAINT_PUT,    \
	  .help = "the bones shrink when the target is nearer")                                    \
	X(LIMITS, .name = "limits", .metavar = "CW:ACW,...", .scope = RIG_CTL_CONSTRAINT_PUT,      \
	  .help = "angle limits, one per chain layer, in degrees: how far its bone may turn "      \
		  "clockwise and anticlockwise from its parent bone (0 to 180), `-` for a free "   \
		  "joint")                                                                         \
	X(KIND, .name = "kind", .metavar = "K", .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "ik",  \
	  .help = "`ik`, or `chain` for a follow chain (whose head chases the target and whose "   \
		  "links trail behind)")                                                           \
	X(SEGMENT_LENGTH, .name = "segment-length", .metavar = "X", .shape = RIG_ARG_NUMBER,       \
	  .scope = RIG_CTL_CONSTRAINT_PUT,                                                         \
	  .help = "chain: every segment's length; or `--lengths`")                                 \
	X(LENGTHS, .name = "lengths", .metavar = "X,Y,...", .scope = RIG_CTL_CONSTRAINT_PUT,       \
	  .help = "chain: one length per segment (the chain's layers less one)")                   \
	X(SMOOTHING, .name = "smoothing", .metavar = "X", .shape = RIG_ARG_NUMBER,                 \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, 0",                           \
	  .help = "chain: the share of the way to the target the head does not go each step, "     \
		  "0 to below 1")                                                                  \
	X(SUBSTEPS, .name = "substeps", .metavar = "N", .shape = RIG_ARG_INT, .min = 1, .max = 8,  \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, 1",                           \
	  .help = "chain: replay steps per frame")                                                 \
	X(MAX_ANGLE, .name = "max-angle", .metavar = "DEG", .shape = RIG_ARG_NUMBER,               \
	  .scope = RIG_CTL_CONSTRAINT_PUT,                                                         \
	  .help = "chain: the most a link may turn from the one before it, 0 to 180 degrees")      \
	X(BODY, .name = "body", .metavar = "B", .scope = RIG_CTL_CONSTRAINT_PUT,                   \
	  .help = "footstep: the layer whose keyed motion carries the feet's rest points")         \
	X(FEET, .name = "feet", .metavar = "IK:X:Y,...", .scope = RIG_CTL_CONSTRAINT_PUT,          \
	  .help = "footstep: per foot, the IK constraint whose target it places and its rest "     \
		  "point in the body's space")                                                     \
	X(GAIT, .name = "gait", .metavar = "I,J/K,...", .scope = RIG_CTL_CONSTRAINT_PUT,           \
	  .def_doc = "the server's, one group per foot",                                           \
	  .help = "footstep: gait groups of foot indices, `/` between groups")                     \
	X(STEP_THRESHOLD, .name = "step-threshold", .metavar = "X", .shape = RIG_ARG_NUMBER,       \
	  .scope = RIG_CTL_CONSTRAINT_PUT,                                                         \
	  .help = "footstep: how far a rest point may drift before its foot steps")                \
	X(STEP_FRAMES, .name = "step-frames", .metavar = "N", .shape = RIG_ARG_INT, .min = 1,      \
	  .max = 1000, .scope = RIG_CTL_CONSTRAINT_PUT, .help = "footstep: frames one step takes") \
	X(STEP_HEIGHT, .name = "step-height", .metavar = "X", .shape = RIG_ARG_NUMBER,             \
	  .scope = RIG_CTL_CONSTRAINT_PUT, .help = "footstep: the lift at mid-step")               \
	X(ORDER, .name = "order", .metavar = "N", .shape = RIG_ARG_INT, .min = LLONG_MIN,          \
	  .max = LLONG_MAX, .scope = RIG_CTL_CONSTRAINT_PUT, .def_doc = "the server's, 0",         \
	  .help = "where the constraint runs among the shot's, lowest first")                      \
	/* pins */                                                                                 \
	X(PIN_ID, .name = "id", .metavar = "P", .scope = RIG_CTL_PIN_WRITES,                       \
	  .required = RIG_ARG_EVERY, .help = "the pin")                                            \
	X(PIN_X, .name = "x", .metavar = "X", .shape = RIG_ARG_NUMBER,                             \
	  .scope = RIG_CTL_PIN_ADD | RIG_CTL_PIN_MOVE, .required = RIG_ARG_EVERY,                  \
	  .help = "the pin's rest x, in mesh-local space; `move` with `--frame`: its "             \
		  "`position.x` "                                                                  \
		  "key")                                                                           \
	X(PIN_Y, .name = "y", .metavar = "Y", .shape = RIG_ARG_NUMBER,                             \
	  .scope = RIG_CTL_PIN_ADD | RIG_CTL_PIN_MOVE, .required = RIG_ARG_EVERY,                  \
	  .help = "the pin's rest y; `move` with `--frame`: its `position.y` key")                 \
	X(ROTATION, .name = "rotation", .metavar = "DEG", .shape = RIG_ARG_NUMBER,                 \
	  .scope = RIG_CTL_PIN_ADD, .def_doc = "the server's, 0",                                  \
	  .help = "the pin's static rotation in degrees")                                          \
	X(STIFFNESS, .name = "stiffness", .metavar = "S", .shape = RIG_ARG_NUMBER,                 \
	  .scope = RIG_CTL_PIN_ADD, .def_doc = "the server's, 0",                                  \
	  .help = "how stiff the mesh is around the pin; the server takes 0 or more")              \
	X(SCALE, .name = "scale", .metavar = "K", .shape = RIG_ARG_NUMBER,                         \
	  .scope = RIG_CTL_PIN_ADD, .def_doc = "the server's, 1",                                  \
	  .help = "the pin's static scale; the server takes more than 0")                          \
	X(OVERLAP, .name = "overlap", .metavar = "D", .shape = RIG_ARG_NUMBER,                     \
	  .scope = RIG_CTL_PIN_ADD, .def_doc = "the server's, 0",                                  \
	  .help = "the pin's depth in the overlap order; the server takes -100 to 100")            \
	X(OVERLAP_EXTENT, .name = "overlap-extent", .metavar = "E", .shape = RIG_ARG_NUMBER,       \
	  .scope = RIG_CTL_PIN_ADD, .def_doc = "the server's, 1",                                  \
	  .help = "how far the pin's depth spreads; the server takes more than 0")                 \
	X(PIN_FRAME, .name = "frame", .metavar = "F", .shape = RIG_ARG_NUMBER,                     \
	  .scope = RIG_CTL_PIN_KEYS, .required = RIG_CTL_PIN_KEY,                                  \
	  .def_doc = "move: none, a new rest position",                                            \
	  .help = "the frame of the key, the layer's local frame")                                 \
	X(CHANNEL, .name = "channel", .shape = RIG_ARG_CHOICE,                                     \
	  .choices = RIG_ARG_CHOICES(RIG_CTL_PIN_CHANNELS), .scope = RIG_CTL_PIN_KEY,              \
	  .required = RIG_ARG_EVERY, .help = "the pin's channel to key")                           \
	X(VALUE, .name = "value", .metavar = "V", .shape = RIG_ARG_NUMBER,                         \
	  .scope = RIG_CTL_PIN_KEY, .required = RIG_ARG_EVERY,                                     \
	  .help = "the key's value; the server checks the channel's range (stiffness 0 or "        \
		  "more, scale more than 0, overlap -100 to 100)")                                 \
	X(INTERP, .name = "interp", .shape = RIG_ARG_CHOICE,                                       \
	  .choices = RIG_ARG_CHOICES(RIG_INTERP_NAMES), .scope = RIG_CTL_PIN_KEYS,                 \
	  .def_doc = "the server's, linear; with `--ease`: bezier",                                \
	  .help = "how the segment from the key to the next interpolates")                         \
	X(EASE, .name = "ease", .metavar = "X1,Y1,X2,Y2", .scope = RIG_CTL_PIN_KEYS,               \
	  .help = "a bezier key's control points, four numbers (x1 and x2 in 0 to 1, the "         \
		  "server checks)")                                                                \
	/* authoring: tessellation */                                                              \
	X(WIDTH, .name = "width", .metavar = "W", .shape = RIG_ARG_NUMBER,                         \
	  .scope = RIG_CTL_TESSELLATES, .required = RIG_CTL_TESSELLATE,                            \
	  .def_doc = "rig auto with `--image`: the PNG's width in pixels",                         \
	  .help = "the rectangle's width in the mesh's units (the image spans it); the server "    \
		  "takes more than 0; `rig auto` needs it, with `--height`, unless `--image` "     \
		  "gives the size")                                                                \
	X(HEIGHT, .name = "height", .metavar = "H", .shape = RIG_ARG_NUMBER,                       \
	  .scope = RIG_CTL_TESSELLATES, .required = RIG_CTL_TESSELLATE,                            \
	  .def_doc = "rig auto with `--image`: the PNG's height in pixels",                        \
	  .help = "the rectangle's height; the server takes more than 0")                          \
	X(DENSITY, .name = "density", .metavar = "N", .shape = RIG_ARG_INT, .min = LLONG_MIN,      \
	  .max = LLONG_MAX, .def = "20", .scope = RIG_CTL_TESSELLATES,                             \
	  .required = RIG_CTL_TESSELLATE,                                                          \
	  .help = "grid cells per side (silhouette: the spacing of its points); the server takes " \
		  "2 to 100")                                                                      \
	X(MODE, .name = "mode", .shape = RIG_ARG_CHOICE,                                           \
	  .choices = RIG_ARG_CHOICES(RIG_CTL_TESSELLATE_MODES), .def = "grid",                     \
	  .scope = RIG_CTL_TESSELLATES,                                                            \
	  .help = "`grid`: the cells the coverage touches, two triangles each; `silhouette`: the " \
		  "coverage's outline resampled, a lattice inside, triangulated")                  \
	X(IMAGE, .name = "image", .metavar = "FILE.png", .min = 1, .scope = RIG_CTL_TESSELLATES,   \
	  .help = "a PNG whose alpha is the coverage, spanning the rectangle; sent "               \
		  "base64-encoded "                                                                \
		  "(`-` reads stdin), decoded by the server (`TESSELLATE_IMAGE` when it is not a " \
		  "PNG); not with `--polygon`")                                                    \
	X(POLYGON, .name = "polygon", .metavar = "FILE.json", .min = 1,                            \
	  .scope = RIG_CTL_TESSELLATES,                                                            \
	  .help = "a JSON file holding the coverage's outline in the mesh's coordinates: "         \
		  "`[[x, y], ...]`, or `{\"polygon\": [[x, y], ...], \"holes\": [[[x, y], ...], "  \
		  "...]}` (`-` reads stdin); not with `--image`; neither: the whole rectangle")    \
	X(EXPANSION, .name = "expansion", .metavar = "E", .shape = RIG_ARG_NUMBER,                 \
	  .scope = RIG_CTL_TESSELLATES, .def_doc = "the server's, 0",                              \
	  .help = "grow the rectangle (grid) or the outline (silhouette) by E on every side; the " \
		  "server takes 0 or more")                                                        \
	X(PIVOT, .name = "pivot", .metavar = "X,Y", .scope = RIG_CTL_TESSELLATES,                  \
	  .def_doc = "the server's, 0.5,0.5 (the centre)",                                         \
	  .help = "the mesh's origin as fractions of the rectangle from its left and bottom "      \
		  "edges, two numbers")                                                            \
	X(ALPHA_THRESHOLD, .name = "alpha-threshold", .metavar = "T", .shape = RIG_ARG_INT,        \
	  .min = LLONG_MIN, .max = LLONG_MAX, .scope = RIG_CTL_TESSELLATES,                        \
	  .def_doc = "the server's, 12",                                                           \
	  .help = "with `--image`: a pixel is covered when its alpha is above T; the server "      \
		  "takes 0 to 255")                                                                \
	X(BINDING, .name = "binding", .shape = RIG_ARG_CHOICE,                                     \
	  .choices = RIG_ARG_CHOICES(RIG_CTL_MESH_BINDINGS), .scope = RIG_CTL_TESSELLATE,          \
	  .help = "with `--shot` (and required there): the binding `layer.mesh.generate` gives "   \
		  "the layer; a new `skin` has no weights, so alone it fails (`SKIN_WEIGHTS`): "   \
		  "`rig auto` or `rigctl edit` send it with its weights")                          \
	/* authoring: weights and bones */                                                         \
	X(METHOD, .name = "method", .shape = RIG_ARG_CHOICE,                                       \
	  .choices = RIG_ARG_CHOICES(RIG_CTL_WEIGHT_METHODS), .kebab = true,                       \
	  .scope = RIG_CTL_AUTO_WEIGHTS, .required = RIG_CTL_WEIGHTS_AUTO,                         \
	  .def_doc = "rig auto: the server's, nearest-joint",                                      \
	  .help = "`segment`: inverse distance to each bone; `nearest-joint`: to each joint's "    \
		  "origin; `harmonic`: diffused over the mesh (the contract's `nearestJoint` "     \
		  "works too)")                                                                    \
	X(MAX_INFLUENCES, .name = "max-influences", .metavar = "N", .shape = RIG_ARG_INT,          \
	  .min = LLONG_MIN, .max = LLONG_MAX, .scope = RIG_CTL_AUTO_WEIGHTS,                       \
	  .def_doc = "the server's, 4",                                                            \
	  .help = "the most joints weighing on a vertex; the server takes 1 to 8")                 \
	X(JOINT, .name = "joint", .metavar = "J", .scope = RIG_CTL_WEIGHT_JOINT,                   \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "the skin's joint (its `jointId`); another is `SKIN_JOINTS`")                    \
	X(PAINT_MODE, .name = "mode", .shape = RIG_ARG_CHOICE,                                     \
	  .choices = RIG_ARG_CHOICES(RIG_CTL_PAINT_MODES), .scope = RIG_CTL_WEIGHTS_PAINT,         \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "what the dab does to the joint's weight: add or subtract the strength, pull "   \
		  "toward the mean under the brush (`smooth`) or toward the strength (`set`)")     \
	X(CENTER, .name = "center", .metavar = "X,Y", .scope = RIG_CTL_WEIGHTS_PAINT,              \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "the brush's centre in the mesh's rest space, two numbers")                      \
	X(RADIUS, .name = "radius", .metavar = "R", .shape = RIG_ARG_NUMBER,                       \
	  .scope = RIG_CTL_WEIGHTS_PAINT, .required = RIG_ARG_EVERY,                               \
	  .help = "the brush's radius; the server takes more than 0")                              \
	X(STRENGTH, .name = "strength", .metavar = "S", .shape = RIG_ARG_NUMBER,                   \
	  .scope = RIG_CTL_WEIGHTS_PAINT, .required = RIG_ARG_EVERY,                               \
	  .help = "how far the dab moves the weight at its centre; the server takes 0 to 1")       \
	X(FEATHER, .name = "feather", .metavar = "F", .shape = RIG_ARG_NUMBER, .def = "0.5",       \
	  .scope = RIG_CTL_WEIGHTS_PAINT,                                                          \
	  .help = "the fraction of the radius over which the strength falls to 0 (smoothstep); 0 " \
		  "is a hard edge; the server takes 0 to 1 and requires it, so it is always sent") \
	X(VERTEX, .name = "vertex", .metavar = "V", RIG_ARG_AT_LEAST(0),                           \
	  .scope = RIG_CTL_WEIGHTS_SET, .required = RIG_ARG_EVERY,                                 \
	  .help = "the vertex index; past the mesh is `SKIN_WEIGHT_VERTEX`")                       \
	X(WEIGHT, .name = "weight", .metavar = "W", .shape = RIG_ARG_NUMBER,                       \
	  .scope = RIG_CTL_WEIGHTS_SET, .required = RIG_ARG_EVERY,                                 \
	  .help = "the joint's weight at the vertex, 0 to 1; the vertex's other joints share the " \
		  "rest in proportion (a vertex with one influence cannot change: "                \
		  "`SKIN_WEIGHT_SET`)")                                                            \
	X(BONES, .name = "bones", .metavar = "N|biped|quadruped", .scope = RIG_CTL_SUGGESTS,       \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "a chain of N joints along the mesh's longer axis (the server takes 1 to 64), "  \
		  "or a preset hierarchy")                                                         \
	X(PARENT, .name = "parent", .metavar = "ID", .scope = RIG_CTL_BONES_SUGGEST,               \
	  .def_doc = "the mesh layer's parent",                                                    \
	  .help = "the layer the bones hang under; `--parent ''`: the shot's root")                \
	X(ID_PREFIX, .name = "id-prefix", .metavar = "P", .scope = RIG_CTL_SUGGESTS,               \
	  .def_doc = "the server's, the layer id and `.`",                                         \
	  .help = "the bones' layer ids are P and the joint's name (`bone0`, ...); an id in use "  \
		  "is `LAYER_EXISTS`")                                                             \
	X(RIG_FRAME, .name = "frame", .metavar = "F", .shape = RIG_ARG_NUMBER,                     \
	  .scope = RIG_CTL_RIG_AUTO, .def_doc = "the server's, 0",                                 \
	  .help = "the mesh layer's local frame whose bone poses become the binds (the skin "      \
		  "evaluates to its source there)")                                                \
	/* interchange */                                                                          \
	X(DOC_FORMAT, .name = "format", .metavar = "FORMAT", .min = 1,                             \
	  .scope = RIG_CTL_INTERCHANGE, .required = RIG_CTL_EXPORT,                                \
	  .def_doc = "import: `rig2d` for a FILE named `*.rig2d.json`, `spine` for a JSON "        \
		     "object with `skeleton.spine`",                                               \
	  .help = "the document's format: `rig2d`; import also `spine`, export also `gltf`, as "   \
		  "the server gains them. Passed on as it is: one the server does not import or "  \
		  "export is `INVALID_QUERY` listing its `validFormats`. Here `--format` is not "  \
		  "the output format (`--json` is)")                                               \
	X(IMPORT_PARENT, .name = "parent", .metavar = "ID", .scope = RIG_CTL_IMPORT, .min = 1,     \
	  .def_doc = "the shot's root",                                                            \
	  .help = "the layer the document's root layers go under (`parentId`)")                    \
	X(IMPORT_ID_PREFIX, .name = "id-prefix", .metavar = "P", .scope = RIG_CTL_IMPORT,          \
	  .def_doc = "none",                                                                       \
	  .help = "prepended to every layer and constraint id the import makes (`idPrefix`); an "  \
		  "id in use is `LAYER_EXISTS`")                                                   \
	X(REPORT, .name = "report", .shape = RIG_ARG_FLAG, .scope = RIG_CTL_EXPORT,                \
	  .help = "print what the format cannot carry (the export report) instead of the "         \
		  "document")                                                                      \
	X(OUTPUT, .name = "output", .metavar = "FILE", .min = 1, .scope = RIG_CTL_EXPORT,          \
	  .def_doc = "stdout",                                                                     \
	  .help = "write the server's bytes to FILE (created or replaced once the answer is "      \
		  "complete); `-` is stdout, even a terminal")

/* Options, indexing rig_ctl_options and struct rig_ctl's values. */
enum rig_ctl_opt {
#define RIG_CTL_OPTION_ID(id, ...) RIG_CTL_O_##id,
	RIG_CTL_OPTIONS(RIG_CTL_OPTION_ID)
#undef RIG_CTL_OPTION_ID
		RIG_CTL_O_COUNT
};

/* The rows of RIG_CTL_OPTIONS, in enum rig_ctl_opt's order (rigctl.c). */
extern const struct rig_arg_spec rig_ctl_options[RIG_CTL_O_COUNT];

#endif
