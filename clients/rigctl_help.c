/* rigctl's help: the overview of 'rigctl --help' and one page per command,
 * printed by 'rigctl COMMAND [VERB] --help' (each row of rigctl.c's command
 * table names its page). Only text lives here: rigctl.c prints each page's
 * two parts around the options of its commands, which come from
 * rigctl_options.h; which command a page belongs to is the command table's.
 */
#include "clients/rigctl.h"

const struct rig_ctl_help rig_ctl_help_overview = {
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
	"       [--lock-id L --fencing-token T]\n"
	"                                apply a batch of ops and print the receipt; FILE\n"
	"                                holds {\"ops\": [...]}, a bare [ops] array or one op\n"
	"                                object; '-' reads stdin. --lock-id/--fencing-token\n"
	"                                prove a lock is still held (else LOCK_LOST)\n"
	"  revert RECEIPT_ID [--force] [--dry-run] [--check-frames] [--expected-version N]\n"
	"         [--idempotency-key K] [--lock-id L --fencing-token T]\n"
	"                                restore what the receipt's batch changed as it was\n"
	"                                before it, as a new version, and print its receipt;\n"
	"                                a later change to the same layers is REVERT_CONFLICT\n"
	"                                (the later receipts are listed) unless --force\n"
	"  receipts --shot ID [--all] [--page-size N]\n"
	"                                receipts, newest first (one page unless --all)\n"
	"  receipts RECEIPT_ID           one receipt\n"
	"  frames --shot ID --layer ID [--from A] [--to B] [--step S] [--space local|shot]\n"
	"         [--format obj|f32] --out DIR [--no-progress]\n"
	"                                evaluate a frame range and write one file per frame:\n"
	"                                DIR/frame_<n>.obj (face indices local to the file) or\n"
	"                                DIR/frame_<n>.f32 (RIGF, frameCount 1), <n> zero-padded\n"
	"                                so name order is frame order; from/to default to the\n"
	"                                shot's range, format to obj. A range that fails on the\n"
	"                                server exits 1 naming frame, code and detail. A progress\n"
	"                                bar shows on stderr when it is a terminal.\n"
	"  plan create --shot ID FILE [--title T] [--base-version N | --pin] [--id PLAN_ID]\n"
	"  plan list --shot ID [--all] [--page-size N]\n"
	"  plan show PLAN_ID\n"
	"  plan validate PLAN_ID         dry run; prints ok or every error, exit 1 if not ok\n"
	"  plan revise PLAN_ID FILE --plan-version N [--title T]\n"
	"              [--base-version N | --pin | --unpin]\n"
	"  plan apply PLAN_ID --plan-version N [--lock-id L --fencing-token T]\n"
	"  plan delete PLAN_ID\n"
	"                                saved plans: see 'rigctl plan --help'\n"
	"  lock acquire --shot ID LAYER_ID... [--ttl S]\n"
	"  lock list --shot ID\n"
	"  lock renew LOCK_ID [--ttl S]\n"
	"  lock release LOCK_ID\n"
	"                                layer locks: see 'rigctl lock --help'\n"
	"  diff SHOT_ID --from N --to M [--max-bytes B]\n"
	"                                what changed from version N to M: layers created,\n"
	"                                deleted or changed (fields, keys per channel, binding\n"
	"                                parts with vertex runs \"3,7,10-99\"), constraints;\n"
	"                                every page is fetched (--max-bytes: their size)\n"
	"  constraints SHOT_ID [--version N] [--json]\n"
	"                                the shot's IK constraints (every page)\n"
	"  constraint put SHOT_ID --id C --chain A,B,... --target T --tip-length X\n"
	"       [--pole P] [--bend-positive|--bend-negative] [--mix X] [--softness X]\n"
	"       [--stretch] [--compress] [--order N] [--expected-version N] [--dry-run]\n"
	"                                put one constraint (the whole of it) as an edit\n"
	"  constraint delete SHOT_ID --id C [--expected-version N] [--dry-run]\n"
	"                                put and delete also take --idempotency-key and\n"
	"                                --lock-id/--fencing-token; without --bend-* the\n"
	"                                server's default (bendPositive true) applies;\n"
	"                                keyed mix or softness: send the op with 'edit'\n",

	"  --version               print the version and the build's git commit (alone)\n"
	"\n"
	"The API token is $RIGD_TOKEN, else the first line of $RIGD_TOKEN_FILE, else of\n"
	"$RIGD_DB.token, else of ./rigd.db.token (the admin token rigd writes on first start);\n"
	"'rigd token create' makes more. Without one a server with --auth on answers\n"
	"UNAUTHENTICATED, and rigctl lists the places it looked in.\n"
	"\n"
	"Each command's own options (--idempotency-key, --check-frames, ...) are on its page,\n"
	"'rigctl COMMAND --help'.\n"
	"\n"
	"Exit codes: 0 ok, 1 the server refused (its problem is printed on stderr),\n"
	"could not be reached or (plan validate) found the plan would not apply, 2 usage\n"
	"error (including an unreadable ops FILE).\n"
	"\n"
	"Examples:\n"
	"  rigctl projects create Demo --id demo\n"
	"  rigctl shots create --project demo 'Shot 1' --id s1 --fps 24 --frame-end 48\n"
	"  rigctl edit --shot s1 rig.json --expected-version 0\n"
	"  echo '[{\"op\":\"layer.rename\",\"layerId\":\"arm\",\"name\":\"Arm\"}]' |\n"
	"      rigctl edit --shot s1 - --dry-run\n"
	"  rigctl layers --shot s1\n"
	"  rigctl receipts --shot s1 --all --format ndjson | jq .toVersion\n"
	"  rigctl frames --shot s1 --layer arm --from 0 --to 48 --format obj --out frames/\n"
	"  rigctl plan create --shot s1 fix.json --title 'Fix the elbow' --pin --id fix-1\n"
	"  rigctl --actor ana lock acquire --shot s1 arm lower --ttl 300\n"
	"  rigctl constraint put s1 --id arm-ik --chain upper,lower --target hand-goal \\\n"
	"      --tip-length 40 --pole elbow-pole --stretch\n"
	"  rigctl constraints s1 --version 12 --json\n",
};

const struct rig_ctl_help rig_ctl_help_plan = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] plan VERB ...\n"
	"\n"
	"A plan is a saved batch of ops for one shot, checked and reviewed before it is\n"
	"applied. Its planVersion is 1 at creation and goes up with every revision;\n"
	"revise and apply state the version you reviewed, so nobody overwrites or\n"
	"applies a plan that changed under them (PLAN_VERSION_CONFLICT). A pinned plan\n"
	"(baseVersion set) applies only while the shot is still at that version\n"
	"(VERSION_CONFLICT after someone else's edit, never rebased); an unpinned one\n"
	"applies to the current version.\n"
	"\n"
	"  plan create --shot ID FILE [--title T] [--base-version N | --pin] [--id PLAN_ID]\n"
	"        save a draft. FILE holds {\"ops\": [...]}, a bare [ops] array or one op\n"
	"        object ('-' reads stdin); an {\"ops\"} object may also carry title and\n"
	"        baseVersion (the flags win) and its other members are ignored, so the\n"
	"        JSON of 'plan show' can be edited and sent back. --pin pins the plan\n"
	"        to the shot's current version.\n"
	"  plan list --shot ID [--all] [--page-size N]\n"
	"        the shot's plans, oldest first (one page unless --all)\n"
	"  plan show PLAN_ID\n"
	"  plan validate PLAN_ID\n"
	"        dry run against the current shot; nothing is written. Prints ok and\n"
	"        the receipt it would produce, or every error with its code, pointer\n"
	"        and op index, and exits 1 when the plan would not apply.\n"
	"  plan revise PLAN_ID FILE --plan-version N [--title T]\n"
	"              [--base-version N | --pin | --unpin]\n"
	"        replace the ops of the draft at version N (sent as If-Match). The\n"
	"        title and the pin stay as they are unless FILE or a flag sets them;\n"
	"        --title '' clears the title, --unpin the pin.\n"
	"  plan apply PLAN_ID --plan-version N [--lock-id L --fencing-token T]\n"
	"        apply version N as one edit and print its receipt; the plan is then\n"
	"        applied and immutable (applying again: PLAN_APPLIED)\n"
	"  plan delete PLAN_ID           delete a draft\n",

	"\n"
	"'rigctl --help' lists the options of every command.\n"
	"\n"
	"Exit codes: 0 ok; 1 the server refused (its problem is printed on stderr) or\n"
	"validate found errors; 2 usage error (including an unreadable FILE).\n"
	"\n"
	"Examples:\n"
	"  rigctl plan create --shot s1 fix.json --title 'Fix the elbow' --pin --id fix-1\n"
	"  rigctl plan validate fix-1\n"
	"  rigctl plan revise fix-1 fix-v2.json --plan-version 1\n"
	"  rigctl plan apply fix-1 --plan-version 2\n"
	"  rigctl plan show fix-1 --format json > plan.json   # edit its ops, then\n"
	"  rigctl plan revise fix-1 plan.json --plan-version 2\n"
	"  rigctl plan list --shot s1 --all --format ndjson |\n"
	"      jq -r 'select(.status == \"draft\") | .planId'\n",
};

const struct rig_ctl_help rig_ctl_help_lock = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] lock VERB ...\n"
	"\n"
	"A lock keeps other actors (--actor, $RIGD_ACTOR) from changing some layers of\n"
	"a shot for a lease of --ttl seconds (1-3600, default 60): their edits and plan\n"
	"applies that touch those layers fail with LAYER_LOCKED. Its fencing token can\n"
	"go along with the owner's writes (edit and plan apply --lock-id L\n"
	"--fencing-token T) to prove the lock is still held: once it was released or\n"
	"has expired they fail with LOCK_LOST instead of landing.\n"
	"\n"
	"  lock acquire --shot ID LAYER_ID... [--ttl S]\n"
	"        lock the layers and print lockId and fencingToken (LOCK_CONFLICT\n"
	"        when another owner's live lock overlaps)\n"
	"  lock list --shot ID             the shot's live locks\n"
	"  lock renew LOCK_ID [--ttl S]    restart the lease from now (with the same\n"
	"                                  ttl unless --ttl); owner only\n"
	"  lock release LOCK_ID            owner only\n",

	"\n"
	"'rigctl --help' lists the options of every command.\n"
	"\n"
	"Exit codes: 0 ok; 1 the server refused (LOCK_CONFLICT, LOCK_NOT_OWNER,\n"
	"LOCK_LOST, ...) or could not be reached; 2 usage error.\n"
	"\n"
	"Examples:\n"
	"  rigctl --actor ana lock acquire --shot s1 arm lower --ttl 300\n"
	"  rigctl --actor ana edit --shot s1 fix.json --lock-id k-81d44511f062c164 \\\n"
	"      --fencing-token 3\n"
	"  rigctl --actor ana lock renew k-81d44511f062c164\n"
	"  rigctl lock list --shot s1 --format ndjson | jq -r .owner\n"
	"  rigctl --actor ana lock release k-81d44511f062c164\n"
	"  lock=$(rigctl --actor ana lock acquire --shot s1 arm --format json)\n"
	"  rigctl --actor ana plan apply fix-1 --plan-version 2 \\\n"
	"      --lock-id \"$(jq -r .lockId <<<\"$lock\")\" \\\n"
	"      --fencing-token \"$(jq .fencingToken <<<\"$lock\")\"\n",
};

const struct rig_ctl_help rig_ctl_help_projects = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] projects VERB ...\n"
	"\n"
	"A project holds shots; a token can be scoped to one project (edit:PROJECT_ID).\n"
	"\n"
	"  projects list                 every project, oldest first (every page);\n"
	"                                'rigctl projects' alone lists them too\n"
	"  projects create NAME [--id ID]\n"
	"                                create one and print it; the server picks the\n"
	"                                id unless --id gives it\n"
	"  projects show ID              one project\n"
	"  projects delete ID            delete the project and all of its shots\n",

	"\n"
	"Examples:\n"
	"  rigctl projects create Demo --id demo\n"
	"  rigctl projects list --format ndjson | jq -r .projectId\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_shots = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] shots VERB ...\n"
	"\n"
	"  shots list --project ID       the project's shots (every page)\n"
	"  shots create --project ID NAME [--id ID] [--fps N] [--frame-start A]\n"
	"               [--frame-end B]\n"
	"                                create a shot at version 0 with no layers; fps\n"
	"                                defaults to 24, the frame range to 0-100\n"
	"  shots show ID                 the shot, its version and its layer tree\n"
	"  shots delete ID [--if-match VERSION]\n"
	"                                delete the shot with its layers and receipts;\n"
	"                                with --if-match only while it is at VERSION\n"
	"                                (else VERSION_CONFLICT)\n",

	"\n"
	"Examples:\n"
	"  rigctl shots create --project demo 'Shot 1' --id s1 --fps 24 --frame-end 48\n"
	"  rigctl shots show s1\n"
	"  rigctl shots delete s1 --if-match 3\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_layers = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] layers --shot ID "
	"[LAYER_ID]\n"
	"\n"
	"  layers --shot ID              the shot's layer tree: each layer's id, kind,\n"
	"                                binding, key count and name (json: the array\n"
	"                                of layers, parents before children)\n"
	"  layers --shot ID LAYER_ID     one layer: its fields, then its keys channel\n"
	"                                by channel\n"
	"\n"
	"A mesh layer's collections (vertices, triangles, joints, weights, keyframes)\n"
	"are paged by mesh-data ('mesh-data --help').\n",

	"\n"
	"Examples:\n"
	"  rigctl layers --shot s1\n"
	"  rigctl layers --shot s1 arm --format json | jq .binding\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_edit = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] edit --shot ID FILE "
	"...\n"
	"\n"
	"  edit --shot ID FILE [--expected-version N] [--dry-run] [--check-frames]\n"
	"       [--idempotency-key K] [--lock-id L --fencing-token T]\n"
	"\n"
	"Applies a batch of ops to the shot as one new version and prints its receipt.\n"
	"FILE holds {\"ops\": [...]}, a bare [ops] array or one op object; '-' reads\n"
	"stdin. The batch applies whole or not at all: a refused batch prints every\n"
	"error with its code, pointer and op index on stderr and exits 1.\n",

	"\n"
	"Exit codes: 0 applied (or, with --dry-run, valid); 1 refused; 2 usage error,\n"
	"including an unreadable or non-JSON FILE.\n"
	"\n"
	"Examples:\n"
	"  rigctl edit --shot s1 rig.json --expected-version 0\n"
	"  echo '[{\"op\":\"layer.rename\",\"layerId\":\"arm\",\"name\":\"Arm\"}]' |\n"
	"      rigctl edit --shot s1 - --dry-run\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_revert = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] revert RECEIPT_ID "
	"...\n"
	"\n"
	"  revert RECEIPT_ID [--force] [--dry-run] [--check-frames] [--expected-version N]\n"
	"         [--idempotency-key K] [--lock-id L --fencing-token T]\n"
	"\n"
	"Restores what the receipt's batch changed as it was before it, as a new\n"
	"version of the shot, and prints the new receipt. A later receipt that changed\n"
	"the same layers makes it REVERT_CONFLICT (the later receipts are listed) unless\n"
	"--force; a receipt older than the retained history is VERSION_COMPACTED.\n",

	"\n"
	"Examples:\n"
	"  rigctl receipts --shot s1            # find the receipt id\n"
	"  rigctl revert r.1.4 --dry-run\n"
	"  rigctl revert r.1.4 --force\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_receipts = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] receipts ...\n"
	"\n"
	"  receipts --shot ID [--all] [--page-size N]\n"
	"                                the shot's receipts, newest first: one page\n"
	"                                unless --all (every page)\n"
	"  receipts RECEIPT_ID           one receipt: versions, actor, ops, changed\n"
	"                                layers\n",

	"\n"
	"Examples:\n"
	"  rigctl receipts --shot s1\n"
	"  rigctl receipts --shot s1 --all --format ndjson | jq .toVersion\n"
	"  rigctl receipts r.1.2\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_frames = {
	"Usage: rigctl [--url URL] frames --shot ID --layer ID --out DIR ...\n"
	"\n"
	"  frames --shot ID --layer ID [--from A] [--to B] [--step S] [--space local|shot]\n"
	"         [--format obj|f32] --out DIR [--no-progress]\n"
	"\n"
	"Evaluates a frame range of a bound layer and writes one file per frame:\n"
	"DIR/frame_<n>.obj (face indices local to the file) or DIR/frame_<n>.f32 (RIGF,\n"
	"frameCount 1), <n> zero-padded so name order is frame order. DIR is created\n"
	"when missing. A range that fails on the server keeps the files of the frames\n"
	"before it and exits 1 naming the frame, the code and the detail.\n",

	"\n"
	"Examples:\n"
	"  rigctl frames --shot s1 --layer arm --from 0 --to 48 --format obj --out frames/\n"
	"  rigctl frames --shot s1 --layer arm --step 0.5 --space shot --format f32 --out f32/\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_diff = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] diff SHOT_ID --from "
	"N --to M\n"
	"\n"
	"  diff SHOT_ID --from N --to M [--max-bytes B]\n"
	"\n"
	"What changed from version N to version M of the shot: layers created, deleted\n"
	"or changed (fields, keys per channel as +added -removed ~changed frames, binding\n"
	"parts with vertex runs \"3,7,10-99\"), constraints. Every page is fetched\n"
	"(--max-bytes: the size of each) and a layer's pages are folded into one record:\n"
	"json prints one document, ndjson one layer per line, table one row per change.\n",

	"\n"
	"Examples:\n"
	"  rigctl diff s1 --from 1 --to 2\n"
	"  rigctl diff s1 --from 0 --to 12 --format ndjson | jq -r .layerId\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_constraints = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] constraints SHOT_ID "
	"...\n"
	"\n"
	"  constraints SHOT_ID [--version N] [--json]\n"
	"\n"
	"The shot's IK constraints (every page), at version N when given. --json is\n"
	"short for --format json. Writing them: 'rigctl constraint --help'.\n",

	"\n"
	"Examples:\n"
	"  rigctl constraints s1\n"
	"  rigctl constraints s1 --version 12 --json\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};

const struct rig_ctl_help rig_ctl_help_constraint = {
	"Usage: rigctl [--url URL] [--actor NAME] [--format table|json|ndjson] constraint "
	"put|delete SHOT_ID ...\n"
	"\n"
	"  constraint put SHOT_ID --id C --chain A,B,... --target T --tip-length X\n"
	"       [--pole P] [--bend-positive|--bend-negative] [--mix X] [--softness X]\n"
	"       [--stretch] [--compress] [--order N] [--expected-version N] [--dry-run]\n"
	"                                put one IK constraint, the whole of it, as an\n"
	"                                edit (one constraint.put op) and print the\n"
	"                                receipt; options left out take the server's\n"
	"                                defaults (bendPositive true, mix 1, softness 0,\n"
	"                                order 0)\n"
	"  constraint delete SHOT_ID --id C [--expected-version N] [--dry-run]\n"
	"\n"
	"A keyed mix or softness: send the op with 'rigctl edit'. Reading them: 'rigctl\n"
	"constraints --help'.\n",

	"\n"
	"Examples:\n"
	"  rigctl constraint put s1 --id arm-ik --chain upper,lower --target hand-goal \\\n"
	"      --tip-length 40 --pole elbow-pole --stretch\n"
	"  rigctl constraint delete s1 --id arm-ik --expected-version 7\n"
	"\n"
	"'rigctl --help' lists the options of every command (--url, --actor, --format,\n"
	"the API token) and the exit codes.\n",
};
