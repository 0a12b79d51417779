/* The one table of rigd's error codes.
 *
 * Every stable code the service can answer with is listed once here, with its
 * HTTP status, whether a retry may succeed, its title (never varies per
 * occurrence), the rule it enforces and how to fix a request that broke it.
 * The enum, the code strings, the statuses and the /v1/errors catalogue are all
 * generated from this list, and so are openapi.yaml's x-error-codes, its error
 * table and its ErrorCode enum (scripts/gen-openapi-codes.py --write; ctest
 * openapi_codes fails when they are stale); nothing else spells a code or a status.
 *
 * X(name, status, retryable, title, rule, fix)
 * retryable: whether sending the very same request again later can succeed
 * (a version conflict cannot: the request must be rebuilt).
 */
#ifndef RIG_CODES_H
#define RIG_CODES_H

#include <stdbool.h>
#include <stddef.h>

/* clang-format off */
#define RIG_CODES(X)                                                                              \
	X(MESH_GEOMETRY, 422, false, "Invalid mesh geometry",                                         \
	  "A mesh has between 3 and 1,048,576 source vertices, every coordinate is a finite number, " \
	  "and evaluated vertices stay finite (within the float range, |v| <= FLT_MAX after "         \
	  "rounding, when sent as format f32).",                                                      \
	  "Send finite x and y for every vertex and keep the vertex count within the limits of "     \
	  "GET /v1/limits; if it happened at evaluation, change the pose that sent a vertex to "      \
	  "infinity (or beyond the float range; or ask for format json).")                            \
	X(MESH_TOPOLOGY, 422, false, "Invalid mesh topology",                                         \
	  "Each triangle is three distinct vertex indices inside the source array, and a mesh has "   \
	  "between 1 and 2,097,152 triangles.",                                                       \
	  "Fix the triangle named by triangleIndex so it lists three different indices in "           \
	  "[0, vertexCount).")                                                                        \
	X(MESH_DEGENERATE, 422, false, "Degenerate source triangle",                                  \
	  "Every source triangle has a non-zero signed area: |A| > 1e-12 * max(1, bbox diagonal^2).", \
	  "Move the vertices of the triangle named by triangleIndex apart, or drop the triangle.")    \
	X(MESH_WINDING, 422, false, "Triangle winding reversed",                                      \
	  "Deformation must not flip a triangle: its signed area keeps the sign it has in the "       \
	  "source mesh.",                                                                             \
	  "Change the joint poses or weights around the triangle named by triangleIndex at the "      \
	  "frame given; linear blend skinning folds under large opposing rotations.")                 \
	X(MESH_COLLAPSED, 422, false, "Triangle collapsed",                                           \
	  "Deformation must not squash a triangle: |A'| >= 1e-6 * |A_source|.",                       \
	  "Change the joint poses around the triangle named by triangleIndex at the frame given, "    \
	  "for example a scale of zero on a joint layer.")                                            \
	X(MESH_BINDING_KIND, 422, false, "Wrong binding kind",                                        \
	  "The operation needs a layer whose binding is of the kind it edits: a skin for "            \
	  "layer.skin.*, a mesh binding for layer.mesh.key.*, any binding for evaluation and "        \
	  "layer.deformation.rest.apply.",                                                            \
	  "Put the binding on the layer first with layer.skin or layer.mesh, or address a layer "     \
	  "bound with the kind the operation needs.")                                                 \
	X(SKIN_JOINTS, 422, false, "Invalid skin joints",                                             \
	  "A skin has 1 to 256 joints; joint ids are 1-64 characters of [A-Za-z0-9_.:-] other "       \
	  "than '.' and '..', and distinct; an op naming a joint of a skin names one it has.",       \
	  "Rename or remove the joint named by jointIndex, or name one of validJointIds.")            \
	X(SKIN_BIND, 422, false, "Invalid bind matrix",                                               \
	  "A bind is six finite numbers [a, b, c, d, e, f] and safely invertible: "                   \
	  "|ad - bc| >= 1e-12 * max(1, (a^2 + b^2 + c^2 + d^2) / 2) with a finite inverse.",          \
	  "Send a non-singular bind for the joint named by jointId, or capture binds with "           \
	  "layer.skin.bind.capture at a frame where the joint layers are not collapsed.")            \
	X(SKIN_WEIGHTS, 422, false, "Invalid skin weights",                                           \
	  "There is one influence list per source vertex; each lists 1 to 8 distinct existing "       \
	  "joints with finite weights > 0 summing to 1 within 64 machine epsilons.",                  \
	  "Fix the list of the vertex named by vertexIndex: send it with layer.skin.weights.put and " \
	  "normalize: true to have its positive finite weights rescaled to sum 1 (layer.skin never "  \
	  "rescales), or scale them yourself; zero, negative or non-finite weights, and a vertex "    \
	  "left with no influence, need fixing either way.")                                          \
	X(SKIN_WEIGHT_VERTEX, 422, false, "Vertex index out of range",                                \
	  "layer.skin.weights.put addresses an existing source vertex (zero-based).",                 \
	  "Read the weights collection of the layer and use a vertexIndex below its vertex count.")  \
	X(SKIN_POSE, 422, false, "Invalid joint poses",                                               \
	  "An evaluation poses every joint of the skin exactly once with six finite numbers.",        \
	  "Add the missing joint, remove the repeated or unknown one named by jointId, or send "      \
	  "finite matrix entries.")                                                                   \
	X(SKIN_JOINT_LAYERS, 422, false, "Invalid joint layer mapping",                               \
	  "Every skin joint is mapped exactly once to an existing layer of the same shot.",           \
	  "Map the joint named by jointId to a layer that exists, or repair or clear the skin in "    \
	  "the same batch that deletes its joint layer.")                                             \
	X(SKIN_DEFORMATION_BOUNDARY, 422, false, "Joint crosses a deformation boundary",              \
	  "A joint layer is not the mesh layer or inside it, and no deformed layer lies strictly "    \
	  "between the common ancestor and the joint or the mesh.",                                   \
	  "Map the joint to a layer outside the skinned layer, or move the layers so no other "       \
	  "deformed layer sits between them.")                                                        \
	X(SKIN_LAYER_TRANSFORM, 422, false, "Mesh transform not invertible",                          \
	  "The path from the common ancestor down to the mesh layer is safely invertible at the "     \
	  "evaluated frame.",                                                                         \
	  "Change the keys at the frame given so no layer between the common ancestor and the mesh " \
	  "has zero scale.")                                                                          \
	X(SKIN_REST_REQUIRES_JOINT_KEYS, 422, false, "Skin rest pose comes from joint keys",          \
	  "layer.deformation.rest.apply does not apply to skins: their rest pose belongs to the "     \
	  "joint layers.",                                                                            \
	  "Restore the joint layers' keys explicitly with layer.key.put.")                            \
	X(PUPPET_PINS, 422, false, "Invalid puppet pins",                                           \
	  "A puppet has at most 256 pins (maxPuppetPins of GET /v1/limits); pin ids are 1-64 "        \
	  "characters of [A-Za-z0-9_.:-] other than '.' and '..', and distinct; x, y and rotation "   \
	  "are finite, stiffness finite and >= 0, scale finite and > 0, overlap in [-100, 100], "     \
	  "overlapExtent finite and > 0; each channel's key values keep its field's range.",          \
	  "Fix the field of the pin named by pinId at the pointer given, or remove pins to stay "     \
	  "within the limit.")                                                                        \
	X(PUPPET_PIN_VERTEX, 422, false, "Pins share a vertex",                                       \
	  "A pin anchors to the source vertex nearest its rest position (ties: the lowest index), "   \
	  "and no two pins anchor to the same vertex.",                                               \
	  "Move one of the pins named by pinId and otherPinId nearer another vertex, or remove it; "  \
	  "vertexIndex names the vertex both anchor to.")                                             \
	X(SKIN_WEIGHT_SET, 422, false, "Weight cannot be set",                                     \
	  "layer.skin.weights.set gives one joint of the vertex a weight in [0, 1] and shares the "   \
	  "rest among its other influences in proportion; a vertex with one influence keeps it, "     \
	  "and a weight of 0 needs another influence to take the vertex.",                            \
	  "Paint another joint onto the vertex first (layer.skin.weights.paint, or "                  \
	  "layer.skin.weights.put with the whole list), or send a weight in [0, 1].")                 \
	X(TESSELLATE_IMAGE, 422, false, "Image is not a readable PNG",                                \
	  "A tessellation's image is a PNG file, base64-encoded, that decodes completely.",           \
	  "Send the PNG's bytes in standard base64 (RFC 4648, with padding); re-export the image "    \
	  "if it is damaged.")                                                                        \
	X(TESSELLATE_IMAGE_TOO_LARGE, 422, false, "Image too large to tessellate",                    \
	  "A tessellation's image has at most 16,777,216 pixels (maxImagePixels of GET /v1/limits) "  \
	  "and no side longer than 16,384 pixels (maxImageSide).",                                    \
	  "Scale the coverage image down: the mesh's density, not the image's resolution, sets its " \
	  "detail.")                                                                                  \
	X(TESSELLATE_POLYGON, 422, false, "Invalid coverage polygon",                                 \
	  "A coverage polygon and each hole is a ring of 3 to 100,000 points (maxPolygonPoints) with " \
	  "finite coordinates, not self-intersecting, with a non-zero area; holes lie inside it.",    \
	  "Fix the ring named by the pointer: drop repeated or crossing points, or send its points "  \
	  "in order around the outline.")                                                             \
	X(TESSELLATE_EMPTY, 422, false, "Nothing to tessellate",                                      \
	  "The coverage (the image's pixels above alphaThreshold, or the polygon) covers enough of "   \
	  "the rectangle to keep at least one triangle; an empty coverage is never answered with a "  \
	  "plain grid.",                                                                              \
	  "Lower alphaThreshold, raise density, or check that the image or polygon lies inside the "  \
	  "rectangle (polygon coordinates are relative to the pivot, y up).")                         \
	X(IMPORT_INVALID, 422, false, "Invalid import document",                                      \
	  "An imported document follows its format: the members the format requires, finite "         \
	  "numbers, indices and names that resolve (a bone's parent, a slot's bone, a triangle's "    \
	  "vertices), no parent cycle, weights that sum to 1 within the format's tolerance.",         \
	  "Fix the document at the pointer (it points into the document: <op>/document/...), or "    \
	  "export it again from the tool that made it.")                                              \
	X(IMPORT_VERSION, 422, false, "Unsupported document version",                                 \
	  "An imported document is of a version its format's importer reads: .rig2d.json 1 or 2, "    \
	  "Spine 4.2.",                                                                               \
	  "Export the document from its tool at one of supportedVersions (Spine: 4.2), or convert "  \
	  "it with that tool first.")                                                                 \
	X(LAYER_NOT_FOUND, 422, false, "Layer not found",                                             \
	  "An operation names a layer that exists in the shot at that point of the batch.",           \
	  "Create the layer earlier in the batch or use an id from GET /v1/shots/{shotId}.")          \
	X(LAYER_EXISTS, 422, false, "Layer id already in use",                                        \
	  "layer.create uses an id no other layer of the shot has.",                                  \
	  "Choose another layerId or omit it to let the server generate one.")                        \
	X(LAYER_CYCLE, 422, false, "Layer hierarchy cycle",                                           \
	  "A layer cannot become its own ancestor.",                                                  \
	  "Choose a parent that is not the layer itself or one of its descendants.")                  \
	X(LAYER_KIND, 422, false, "Wrong layer kind",                                                 \
	  "Only mesh layers carry a binding and have mesh data.",                                     \
	  "Create the layer with kind \"mesh\" to give it a binding, and read mesh data from a mesh " \
	  "layer.")                                                                                   \
	X(IK_CHAIN, 422, false, "Invalid IK chain",                                                 \
	  "A constraint's chain lists existing group layers root to tip, each the parent of the "   \
	  "next: 1 to 8 for an IK constraint, 2 to 32 for a follow chain.",                           \
	  "Fix the chain entry named by the pointer and layerId: create the layer, make it a group "  \
	  "layer, or reorder the chain so every layer is the parent of the one after it.")           \
	X(IK_TARGET, 422, false, "Invalid IK target or pole",                                         \
	  "A constraint's target and pole are existing layers outside the chain: neither the "        \
	  "chain root nor any layer below it, since the chain would move its own goal. A follow "     \
	  "chain replays its target's keyed motion, so no other constraint may move its target.",     \
	  "Name a target or pole layer (layerId) that is not the chain root or one of its "           \
	  "descendants, for example a sibling of the chain root or a layer under the shot root.")     \
	X(IK_CYCLE, 422, false, "IK constraints depend on each other",                                \
	  "IK constraints must not depend on each other in a cycle: a constraint depends on another " \
	  "when one of its chain, target or pole layers is the other's chain root or below it.",      \
	  "Break the cycle named by constraintId and otherConstraintId: chains may not overlap, and " \
	  "a target or pole may not sit under a chain whose own target or pole sits under this one.")\
	X(REPLAY_LIMIT, 422, false, "Frame too far to replay",                                        \
	  "A follow chain's or a walker's pose at a frame is replayed step by step from the shot's " \
	  "frameStart in the request: (frame − frameStart) × steps per frame (a chain's substeps, "  \
	  "a walker's 1) must not exceed maxReplaySteps of GET /v1/limits (100000).",                 \
	  "Ask for a frame nearer frameStart, move the shot's frameStart later, or lower the "        \
	  "chain's substeps (constraintId names it).")                                                \
	X(CONSTRAINT_NOT_FOUND, 422, false, "Constraint not found",                                   \
	  "constraint.delete names a constraint that exists in the shot at that point of the batch.", \
	  "Use a constraintId from GET /v1/shots/{shotId}/constraints.")                              \
	X(LAYER_LOCKED, 423, false, "Layer locked",                                                   \
	  "A layer locked by another owner cannot be changed.",                                       \
	  "Wait for the lock named by lockId to be released or expire, or ask its owner.")            \
	X(LOCK_CONFLICT, 409, false, "Lock conflict",                                                 \
	  "A lock cannot overlap another owner's live lock.",                                         \
	  "Wait for the lock named by lockId or lock other layers.")                                  \
	X(LOCK_NOT_OWNER, 403, false, "Not the lock owner",                                          \
	  "Only the identity that acquired a lock (its API token; its X-Rigd-Actor under --auth "   \
	  "off) may renew or release it; an admin of its project may break it with ?force=true.",   \
	  "Send the request with the lock owner's token, wait for the lock to expire, or ask an "   \
	  "admin of the project to break it.")                                                        \
	X(LOCK_LOST, 423, false, "Lock lost",                                                         \
	  "A batch that proves a lock with a fencing token must carry the lock's current token.",     \
	  "Acquire the lock again and resend with its new fencingToken.")                             \
	X(OP_UNKNOWN, 422, false, "Unknown operation",                                                \
	  "Every op names one of the operations listed in openapi.yaml.",                             \
	  "Fix the op name at the pointer given.")                                                    \
	X(OP_INVALID, 422, false, "Invalid operation field",                                          \
	  "Each field of an op has the documented type and range, and required fields are present.",  \
	  "Fix the field at the pointer given.")                                                      \
	X(BATCH_TOO_LARGE, 413, false, "Too many operations",                                         \
	  "A batch holds between 1 and the maxOpsPerBatch of GET /v1/limits operations.",             \
	  "Split the batch into several batches.")                                                    \
	X(VERSION_CONFLICT, 409, false, "Shot version conflict",                                       \
	  "A write that states the shot version it expects applies only while the shot is at that "   \
	  "version (409 for expectedVersion in the body, 412 for If-Match, which holds when any of "  \
	  "its strong tags names the version; weak tags never match).",                               \
	  "Read the shot again (currentVersion is in the error), rebuild the edit and resend.")       \
	X(REVERT_CONFLICT, 409, false, "Revert conflict",                                             \
	  "receipt.revert restores the layers a receipt changed only while no later receipt changed " \
	  "them too.",                                                                                \
	  "Revert the later receipts (listed in receipts) first, or send force: true to overwrite.")  \
	X(CHECK_OUTDATED, 409, true, "Shot changed during the frame check",                          \
	  "An edit with checkFrames is checked outside the write turn and commits only if no other "  \
	  "write changed the shot (or the locks on it) while its frames were checked.",               \
	  "Send the edit again; currentVersion is in the error.")                                     \
	X(CHECK_TOO_LARGE, 422, false, "Frame check too large",                                       \
	  "An edit's checkFrames evaluates at most maxCheckVertexFrames of GET /v1/limits (vertices " \
	  "of the checked layers times frames).",                                                     \
	  "Check a shorter range or a larger step in the edit, or check the whole range page by "     \
	  "page with GET /v1/shots/{shotId}/check and commit with expectedVersion.")                  \
	X(PLAN_VERSION_CONFLICT, 409, false, "Plan version conflict",                                  \
	  "A plan revision or apply states the plan version it was based on.",                        \
	  "Read the plan again and resend with its current planVersion.")                             \
	X(PLAN_APPLIED, 409, false, "Plan already applied",                                           \
	  "An applied plan is immutable and cannot be applied again.",                                \
	  "Read the receipt named by receiptId; create a new plan for further edits.")                \
	X(PROJECT_EXISTS, 409, false, "Project id already in use",                                     \
	  "A project is created with an id no other project has.",                                    \
	  "Choose another projectId or omit it to let the server generate one; GET "                  \
	  "/v1/projects/{projectId} reads the project that has it.")                                 \
	X(SHOT_EXISTS, 409, false, "Shot id already in use",                                           \
	  "A shot is created with an id no other shot has: shot ids are one namespace across every "  \
	  "project of the server.",                                                                   \
	  "Choose another shotId or omit it to let the server generate one.")                         \
	X(IDEMPOTENCY_KEY_REUSED, 422, false, "Idempotency key reused",                               \
	  "An Idempotency-Key names one request of its caller; the same caller's key with a different request is refused.", \
	  "Use a fresh Idempotency-Key for a different request.")                                     \
	X(IDEMPOTENCY_IN_PROGRESS, 409, true, "Request in progress",                                  \
	  "A request of this caller with this Idempotency-Key is still being processed.",             \
	  "Retry after a short wait; you will receive the original response.")                        \
	X(PAGE_TOKEN_STALE, 410, false, "Page token stale",                                           \
	  "A page token reads the shot version it was issued at, while that version is retained "    \
	  "(--history-versions).",                                                                    \
	  "Start paging again without pageToken.")                                                    \
	X(VERSION_COMPACTED, 410, false, "Version compacted",                                         \
	  "A past version of a shot is readable while it is among the shot's last "                  \
	  "--history-versions versions; older ones are compacted away.",                              \
	  "Read a newer version (oldestVersion is in the error), or the head without version.")       \
	X(PAGE_TOKEN_INVALID, 400, false, "Page token invalid",                                       \
	  "A page token comes from a previous page of the same query.",                               \
	  "Send the nextPageToken unchanged with the same query parameters, or start again.")        \
	X(MALFORMED_JSON, 400, false, "Malformed JSON",                                               \
	  "A request body is one UTF-8 JSON document without duplicate keys, non-finite numbers or "  \
	  "trailing data.",                                                                           \
	  "Fix the JSON at the line and column given.")                                               \
	X(INVALID_QUERY, 400, false, "Invalid query or header",                                       \
	  "Query parameters, path ids and headers have the documented format.",                       \
	  "Fix the parameter named by parameter.")                                                    \
	X(INVALID_PARAMETER, 400, false, "Unknown or repeated query parameter",                       \
	  "A request carries only the query parameters its route documents, each at most once "       \
	  "and with a value (name=value); names are compared after percent-decoding.",                \
	  "Remove or rename the parameter named by parameter; validParameters lists the ones "        \
	  "the route reads.")                                                                         \
	X(INVALID_FIELD, 422, false, "Invalid field",                                                 \
	  "A resource body has the documented fields, types and ranges.",                             \
	  "Fix the field at the pointer given.")                                                      \
	X(UNAUTHENTICATED, 401, false, "Authentication required",                                    \
	  "Every route except /healthz, /readyz, the error catalogue and the OpenAPI document needs " \
	  "a live API token sent as Authorization: Bearer <token>.",                                  \
	  "Send a token that is not revoked or expired; an admin creates one with POST /v1/tokens " \
	  "or rigd token create.")                                                                    \
	X(FORBIDDEN, 403, false, "Scope missing",                                                     \
	  "A token acts only within its scopes: read, edit or admin, on every project or on one.",    \
	  "Use a token with the requiredScope given, on the projectId given (or on every project).")  \
	X(RATE_LIMITED, 429, true, "Too many requests",                                               \
	  "Each token may send --rate-limit requests per second on average, in bursts of twice " \
	  "that.",                                                                                    \
	  "Wait for the Retry-After interval, then send again.")                                     \
	X(NOT_FOUND, 404, false, "Not found",                                                         \
	  "The addressed resource exists.",                                                           \
	  "Check the ids in the path.")                                                               \
	X(METHOD_NOT_ALLOWED, 405, false, "Method not allowed",                                       \
	  "Each route answers the methods documented for it.",                                        \
	  "Use a method listed in the Allow header.")                                                 \
	X(UNSUPPORTED_MEDIA_TYPE, 415, false, "Unsupported media type",                               \
	  "Request bodies are application/json in UTF-8: a charset parameter, if any, is utf-8.",     \
	  "Send Content-Type: application/json (optionally ; charset=utf-8) with a UTF-8 body.")      \
	X(PRECONDITION_INVALID, 400, false, "Invalid precondition",                                   \
	  "If-Match is * or a list of up to 16 entity tags such as \"12\" (RFC 9110 13.1.1), and "   \
	  "names the body's expectedVersion when both are given.",                                    \
	  "Send If-Match with the quoted version from the shot's ETag, or * for any version.")        \
	X(HEADERS_TOO_LARGE, 431, false, "Request headers too large",                                 \
	  "A request carries at most 100 header fields of at most 8 KiB each.",                       \
	  "Send fewer or shorter headers.")                                                           \
	X(AMBIGUOUS_FRAMING, 400, false, "Ambiguous request framing",                                 \
	  "A request states its body length once: one Content-Length, or Transfer-Encoding exactly "  \
	  "'chunked' without Content-Length (no other transfer coding is supported).",                \
	  "Send a single Content-Length header (the connection is closed after this answer).")        \
	X(MALFORMED_REQUEST, 400, false, "Malformed HTTP request",                                    \
	  "A request is plain HTTP/1.1 (RFC 9112): a request line of method, target and version "    \
	  "separated by single spaces, a method that is a token, no space or control character in "  \
	  "the target, no NUL in the request line or in a header value, header names without "       \
	  "whitespace before the colon, no obs-fold continuation lines, a Host header and at most "  \
	  "one Authorization header.",                                                                \
	  "Send a well-formed request; the connection is closed after this answer.")                 \
	X(URI_TOO_LONG, 414, false, "Request URI too long",                                           \
	  "A request target is at most 16,384 bytes with at most 100 query parameters.",              \
	  "Send a shorter path and fewer query parameters; the connection is closed after this "      \
	  "answer.")                                                                                  \
	X(BODY_TOO_LARGE, 413, false, "Request body too large",                                       \
	  "A request body is at most the maxBodyBytes of GET /v1/limits.",                            \
	  "Send a smaller body, for example by splitting an edit batch.")                             \
	X(RESPONSE_TOO_LARGE, 422, false, "Response too large",                                      \
	  "A read that answers a whole resource in one body (GET .../layers/{layerId}/skin) answers " \
	  "at most maxBytes of JSON (default 1 MiB, at most the maxPageBytes of GET /v1/limits).",    \
	  "Raise maxBytes up to the limit, or read the resource in pages through the routes listed " \
	  "in pagedRoutes (mesh-data vertices, triangles, joints and weights).")                     \
	X(TOO_MANY_REQUESTS, 503, true, "Server busy",                                                \
	  "The server accepts a bounded number of concurrent connections.",                           \
	  "Retry after the Retry-After interval.")                                                    \
	X(TOO_MANY_CONNECTIONS, 503, true, "Too many connections",                                    \
	  "The server holds at most --max-connections open connections; past that a new connection "  \
	  "is answered this and closed.",                                                             \
	  "Retry after the Retry-After interval, and reuse keep-alive connections instead of "        \
	  "opening many.")                                                                            \
	X(MEMORY_BUSY, 503, true, "Server memory busy",                                               \
	  "Request bodies, their parsing and open frame-range streams share the server's memory "     \
	  "budget (--memory-budget); a request the budget cannot hold now, or whose parse runs out "  \
	  "of memory, is refused with nothing applied.",                                              \
	  "Retry after the Retry-After interval, or send a smaller request (split an edit batch).")  \
	X(SHUTTING_DOWN, 503, true, "Server shutting down",                                           \
	  "A draining server finishes in-flight requests and refuses new ones.",                      \
	  "Retry against another instance or after the restart.")                                     \
	X(STORAGE_UNAVAILABLE, 503, true, "Storage unavailable",                                      \
	  "The database answers within the busy timeout.",                                            \
	  "Retry after a short wait.")                                                                \
	X(STORAGE_FULL, 507, true, "Storage full",                                                    \
	  "A write needs free space on the database's filesystem; nothing of a write that hit a "     \
	  "full disk is kept.",                                                                       \
	  "Free disk space on the server (the operator's job), then send the same request again.")   \
	X(INTERNAL, 500, true, "Internal error",                                                      \
	  "The server did not finish the request because of a fault on its side.",                   \
	  "Retry; if it persists, report the requestId from the response.")
/* clang-format on */

enum rig_code {
	RIG_OK = 0,
#define RIG_CODE_ENUM(name, status, retryable, title, rule, fix) RIG_##name,
	RIG_CODES(RIG_CODE_ENUM)
#undef RIG_CODE_ENUM
		RIG_CODE_COUNT
};

/* The stable code string ("SKIN_WEIGHTS"); "OK" for RIG_OK, "INTERNAL" for an out-of-range value.
 */
const char *rig_code_name(enum rig_code code);

/* The HTTP status the code answers with by default (200 for RIG_OK). */
int rig_code_status(enum rig_code code);

/* Whether repeating the same request later can succeed. */
bool rig_code_retryable(enum rig_code code);

/* The title, rule and fix texts of the catalogue; static strings, never NULL. */
const char *rig_code_title(enum rig_code code);
const char *rig_code_rule(enum rig_code code);
const char *rig_code_fix(enum rig_code code);

/* Looks a code up by its string; returns RIG_OK when the string names no code. */
enum rig_code rig_code_from_name(const char *name);

#endif
