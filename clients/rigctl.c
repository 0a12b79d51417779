/* rigctl: the rigd API from a terminal (SPEC §9). This file parses the
 * command line, picks the command and holds the helpers every command uses;
 * the commands live in rigctl_resources.c, rigctl_edit.c and rigctl_frames.c.
 */
#include "rigctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "report.h"

static const char usage_text[] =
    "Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] COMMAND ...\n"
    "\n"
    "Commands:\n"
    "  projects list\n"
    "  projects create NAME [--id ID]\n"
    "  projects show ID\n"
    "  projects delete ID\n"
    "  shots list --project ID\n"
    "  shots create --project ID NAME [--id ID] [--fps N] [--frame-start A] [--frame-end B]\n"
    "  shots show ID                 the shot, its version and its layer tree\n"
    "  shots delete ID [--if-match VERSION]\n"
    "  layers --shot ID [LAYER_ID]   the layer tree, or one layer with its keys\n"
    "  edit --shot ID FILE [--expected-version N] [--dry-run] [--idempotency-key K]\n"
    "                                apply a batch of ops and print the receipt; FILE\n"
    "                                holds {\"ops\": [...]}, a bare [ops] array or one op\n"
    "                                object; '-' reads stdin\n"
    "  receipts --shot ID [--all] [--page-size N]\n"
    "                                receipts, newest first (one page unless --all)\n"
    "  receipts RECEIPT_ID           one receipt\n"
    "  frames --shot ID --layer ID [--from A] [--to B] [--step S] [--space local|shot]\n"
    "         [--format obj|f32] --out DIR [--no-progress]\n"
    "                                evaluate a frame range and write one file per frame:\n"
    "                                DIR/frame_<n>.obj (face indices local to the file) or\n"
    "                                DIR/frame_<n>.f32 (RIGF, frameCount 1); from/to default\n"
    "                                to the shot's range, format to obj. A progress bar\n"
    "                                shows on stderr when it is a terminal.\n"
    "\n"
    "Options for every command:\n"
    "  --url URL        server (default: $RIGD_URL, else " RIG_HTTP_DEFAULT_URL ")\n"
    "  --actor NAME     sent as X-Rigd-Actor (default: $RIGD_ACTOR, else none)\n"
    "  --format F       table (default on a terminal), json (default otherwise: one\n"
    "                   JSON document; lists are one array) or ndjson (one object\n"
    "                   per line)\n"
    "  --idempotency-key K   on create, delete and edit: the server answers a retry\n"
    "                   with the first response instead of applying it twice\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit codes: 0 ok, 1 the server refused (its problem is printed on stderr) or\n"
    "could not be reached, 2 usage error (including an unreadable edit FILE).\n"
    "\n"
    "Examples:\n"
    "  rigctl projects create Demo --id demo\n"
    "  rigctl shots create --project demo 'Shot 1' --id s1 --fps 24 --frame-end 48\n"
    "  rigctl edit --shot s1 rig.json --expected-version 0\n"
    "  echo '[{\"op\":\"layer.rename\",\"layerId\":\"arm\",\"name\":\"Arm\"}]' |\n"
    "      rigctl edit --shot s1 - --dry-run\n"
    "  rigctl layers --shot s1\n"
    "  rigctl receipts --shot s1 --all --format ndjson | jq .toVersion\n"
    "  rigctl frames --shot s1 --layer arm --from 0 --to 48 --format obj --out frames/\n";

struct command {
	const char *name;
	const char *verb; /* NULL: the command takes no verb */
	enum rig_ctl_cmd bit;
	size_t min_args, max_args;
	int (*run)(struct rig_ctl *c);
};

static const struct command commands[] = {
    {"projects", "list", RIG_CTL_PROJECTS_LIST, 0, 0, rig_ctl_projects},
    {"projects", "create", RIG_CTL_PROJECTS_CREATE, 1, 1, rig_ctl_projects},
    {"projects", "show", RIG_CTL_PROJECTS_SHOW, 1, 1, rig_ctl_projects},
    {"projects", "delete", RIG_CTL_PROJECTS_DELETE, 1, 1, rig_ctl_projects},
    {"shots", "list", RIG_CTL_SHOTS_LIST, 0, 0, rig_ctl_shots},
    {"shots", "create", RIG_CTL_SHOTS_CREATE, 1, 1, rig_ctl_shots},
    {"shots", "show", RIG_CTL_SHOTS_SHOW, 1, 1, rig_ctl_shots},
    {"shots", "delete", RIG_CTL_SHOTS_DELETE, 1, 1, rig_ctl_shots},
    {"layers", NULL, RIG_CTL_LAYERS, 0, 1, rig_ctl_layers},
    {"edit", NULL, RIG_CTL_EDIT, 1, 1, rig_ctl_edit},
    {"receipts", NULL, RIG_CTL_RECEIPTS, 0, 1, rig_ctl_receipts},
    {"frames", NULL, RIG_CTL_FRAMES, 0, 0, rig_ctl_frames},
};

/* ---- helpers for the commands ---- */

const char *rig_ctl_opt(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].value;
}

bool rig_ctl_flag(const struct rig_ctl *c, enum rig_ctl_opt o)
{
	return c->opts[o].seen;
}

int rig_ctl_usage(const char *fmt, ...)
{
	va_list ap;
	fputs(RIG_CTL_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" RIG_CTL_PROG " --help'.\n", stderr);
	return RIG_EXIT_USAGE;
}

int rig_ctl_call(struct rig_ctl *c, const char *method, const char *target, const json_t *body,
                 const char *idempotency_key, const char *if_match, json_t **out)
{
	struct rig_bytes text;
	struct rig_http_resp resp;
	int rc = RIG_EXIT_FAIL;
	rig_bytes_init(&text);
	rig_http_resp_init(&resp);
	if (out)
		*out = NULL;
	if (!target || (body && rig_out_json(&text, body) != 0)) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
		goto out;
	}
	struct rig_http_req req = {.method = method,
	                           .target = target,
	                           .body = body ? text.data : NULL,
	                           .body_len = text.len,
	                           .idempotency_key = idempotency_key,
	                           .if_match = if_match};
	int sent = rig_http_send(&c->http, &req, &resp);
	if (sent != 0 || !rig_http_ok(&resp)) {
		rc = rig_report_send(stderr, RIG_CTL_PROG, sent, &c->http, &resp);
		goto out;
	}
	if (out && resp.body.len) {
		json_error_t jerr;
		*out = json_loadb(resp.body.data, resp.body.len, 0, &jerr);
		if (!*out) {
			rc = rig_report_fail(stderr, RIG_CTL_PROG,
			                     "the server's answer is not JSON (HTTP %ld): %s",
			                     resp.status, jerr.text);
			goto out;
		}
	}
	rc = RIG_EXIT_OK;
out:
	rig_http_resp_release(&resp);
	rig_bytes_release(&text);
	return rc;
}

int rig_ctl_print_json(const json_t *v)
{
	if (rig_out_json_line(stdout, v) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	return RIG_EXIT_OK;
}

static bool skipped(const char *key, const char *const *skip)
{
	for (size_t i = 0; skip && skip[i]; i++)
		if (strcmp(key, skip[i]) == 0)
			return true;
	return false;
}

int rig_ctl_print_fields(const json_t *o, const char *const *skip)
{
	const char *key;
	json_t *v;
	size_t width = 0;
	struct rig_bytes cell;
	rig_bytes_init(&cell);
	json_object_foreach((json_t *)o, key, v)
	{
		if (!skipped(key, skip) && strlen(key) > width)
			width = strlen(key);
	}
	json_object_foreach((json_t *)o, key, v)
	{
		if (skipped(key, skip))
			continue;
		rig_bytes_clear(&cell);
		if (json_is_null(v))
			rig_bytes_puts(&cell, "-");
		else
			rig_out_cell(&cell, v);
		printf("%-*s  %s\n", (int)width, key, cell.data ? cell.data : "");
	}
	rig_bytes_release(&cell);
	return ferror(stdout) ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
	                      : RIG_EXIT_OK;
}

int rig_ctl_print_object(const struct rig_ctl *c, const json_t *o)
{
	return c->format == RIG_CTL_TABLE ? rig_ctl_print_fields(o, NULL) : rig_ctl_print_json(o);
}

/* ---- the command line ---- */

/* Finds the command for the positional words; *n_used says how many name it. */
static const struct command *find_command(const char *const *words, size_t n_words, size_t *n_used)
{
	if (n_words == 0)
		return NULL;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		const struct command *cmd = &commands[i];
		if (strcmp(cmd->name, words[0]) != 0)
			continue;
		if (!cmd->verb) {
			*n_used = 1;
			return cmd;
		}
		/* "rigctl projects" alone lists them. */
		if (n_words == 1 && strcmp(cmd->verb, "list") == 0) {
			*n_used = 1;
			return cmd;
		}
		if (n_words > 1 && strcmp(cmd->verb, words[1]) == 0) {
			*n_used = 2;
			return cmd;
		}
	}
	return NULL;
}

static int check_command(const struct command *cmd, const struct rig_opt *opts, size_t n_args,
                         const char *const *words, size_t n_words)
{
	if (!cmd) {
		if (n_words == 0)
			return rig_ctl_usage("a command is required");
		bool known = false;
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			known |= strcmp(commands[i].name, words[0]) == 0;
		if (known)
			return rig_ctl_usage("'%s %s' is not a command (try list, create, show or"
			                     " delete)",
			                     words[0], n_words > 1 ? words[1] : "");
		return rig_ctl_usage("'%s' is not a command", words[0]);
	}
	const char *label = cmd->verb ? cmd->verb : "";
	if (n_args < cmd->min_args)
		return rig_ctl_usage("'%s%s%s' needs %s", cmd->name, cmd->verb ? " " : "", label,
		                     cmd->bit == RIG_CTL_EDIT ? "a FILE (or '-' for stdin)"
		                     : cmd->bit & (RIG_CTL_PROJECTS_CREATE | RIG_CTL_SHOTS_CREATE)
		                         ? "a NAME"
		                         : "an ID");
	if (n_args > cmd->max_args)
		return rig_ctl_usage("unexpected argument '%s'", words[cmd->max_args]);
	for (size_t o = 0; o < RIG_CTL_O_COUNT; o++) {
		if (opts[o].seen && opts[o].scope && !(opts[o].scope & cmd->bit))
			return rig_ctl_usage("option '--%s' does not apply to '%s%s%s'",
			                     opts[o].name, cmd->name, cmd->verb ? " " : "", label);
	}
	return RIG_EXIT_OK;
}

int main(int argc, char **argv)
{
	const unsigned creates = RIG_CTL_PROJECTS_CREATE | RIG_CTL_SHOTS_CREATE;
	const unsigned writes =
	    creates | RIG_CTL_PROJECTS_DELETE | RIG_CTL_SHOTS_DELETE | RIG_CTL_EDIT;
	const unsigned per_shot = RIG_CTL_LAYERS | RIG_CTL_EDIT | RIG_CTL_RECEIPTS | RIG_CTL_FRAMES;
	const unsigned lists = RIG_CTL_PROJECTS_LIST | RIG_CTL_SHOTS_LIST | RIG_CTL_RECEIPTS;
	struct rig_opt opts[RIG_CTL_O_COUNT] = {
	    [RIG_CTL_O_URL] = {"url", true, 0, NULL, false},
	    [RIG_CTL_O_ACTOR] = {"actor", true, 0, NULL, false},
	    [RIG_CTL_O_FORMAT] = {"format", true, 0, NULL, false},
	    [RIG_CTL_O_HELP] = {"help", false, 0, NULL, false},
	    [RIG_CTL_O_ID] = {"id", true, creates, NULL, false},
	    [RIG_CTL_O_PROJECT] = {"project", true, RIG_CTL_SHOTS_LIST | RIG_CTL_SHOTS_CREATE, NULL,
	                           false},
	    [RIG_CTL_O_FPS] = {"fps", true, RIG_CTL_SHOTS_CREATE, NULL, false},
	    [RIG_CTL_O_FRAME_START] = {"frame-start", true, RIG_CTL_SHOTS_CREATE, NULL, false},
	    [RIG_CTL_O_FRAME_END] = {"frame-end", true, RIG_CTL_SHOTS_CREATE, NULL, false},
	    [RIG_CTL_O_IF_MATCH] = {"if-match", true, RIG_CTL_SHOTS_DELETE, NULL, false},
	    [RIG_CTL_O_IDEMPOTENCY_KEY] = {"idempotency-key", true, writes, NULL, false},
	    [RIG_CTL_O_SHOT] = {"shot", true, per_shot, NULL, false},
	    [RIG_CTL_O_LAYER] = {"layer", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_EXPECTED_VERSION] = {"expected-version", true, RIG_CTL_EDIT, NULL, false},
	    [RIG_CTL_O_DRY_RUN] = {"dry-run", false, RIG_CTL_EDIT, NULL, false},
	    [RIG_CTL_O_ALL] = {"all", false, RIG_CTL_RECEIPTS, NULL, false},
	    [RIG_CTL_O_PAGE_SIZE] = {"page-size", true, lists, NULL, false},
	    [RIG_CTL_O_FROM] = {"from", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_TO] = {"to", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_STEP] = {"step", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_SPACE] = {"space", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_OUT] = {"out", true, RIG_CTL_FRAMES, NULL, false},
	    [RIG_CTL_O_NO_PROGRESS] = {"no-progress", false, RIG_CTL_FRAMES, NULL, false},
	};
	const char *words[8];
	size_t n_words = 0, n_used = 0;
	char err[256];
	if (rig_args_parse(opts, RIG_CTL_O_COUNT, argc, argv, words, 8, &n_words, err,
	                   sizeof err) != 0)
		return rig_ctl_usage("%s", err);
	if (opts[RIG_CTL_O_HELP].seen) {
		fputs(usage_text, stdout);
		return RIG_EXIT_OK;
	}
	const struct command *cmd = find_command(words, n_words, &n_used);
	int rc = check_command(cmd, opts, n_words - n_used, words + n_used, n_words);
	if (rc != RIG_EXIT_OK)
		return rc;
	struct rig_ctl c = {
	    .cmd = cmd->bit, .opts = opts, .args = words + n_used, .n_args = n_words - n_used};
	const char *format = opts[RIG_CTL_O_FORMAT].value;
	if (cmd->bit != RIG_CTL_FRAMES && format) {
		if (strcmp(format, "table") == 0)
			c.format = RIG_CTL_TABLE;
		else if (strcmp(format, "json") == 0)
			c.format = RIG_CTL_JSON;
		else if (strcmp(format, "ndjson") == 0)
			c.format = RIG_CTL_NDJSON;
		else
			return rig_ctl_usage("--format '%s' is not table, json or ndjson", format);
	} else {
		c.format = isatty(STDOUT_FILENO) ? RIG_CTL_TABLE : RIG_CTL_JSON;
	}
	const char *url = opts[RIG_CTL_O_URL].value, *env_url = getenv("RIGD_URL");
	if (!url)
		url = env_url && *env_url ? env_url : RIG_HTTP_DEFAULT_URL;
	const char *actor = opts[RIG_CTL_O_ACTOR].value, *env_actor = getenv("RIGD_ACTOR");
	if (!actor && env_actor && *env_actor)
		actor = env_actor;
	if (actor && (!*actor || strlen(actor) > 128))
		return rig_ctl_usage("--actor must be 1 to 128 characters");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot initialise libcurl");
	if (rig_http_init(&c.http, url, actor) != 0)
		rc = rig_report_transport(stderr, RIG_CTL_PROG, &c.http);
	else
		rc = cmd->run(&c);
	if (rc == RIG_EXIT_OK && fflush(stdout) != 0)
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	rig_http_release(&c.http);
	curl_global_cleanup();
	return rc;
}
