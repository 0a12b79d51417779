/* The limits rigd enforces: the one table of them. Each row is a constant
 * (RIG_<NAME>, an enum value) and, when it has a wire name, a member of
 * GET /v1/limits (api/handlers/meta.c walks the table; openapi.yaml's Limits
 * schema lists the same names, checked by test_openapi_sync.py). Limits
 * set by the configuration (--max-body, --max-connections, …) are not here:
 * they are reported from struct rig_app_limits.
 *
 * X(NAME, wire name or NULL, value)
 */
#ifndef RIG_RIG_LIMITS_H
#define RIG_RIG_LIMITS_H

/* clang-format off */
#define RIG_LIMITS(X)                                                                             \
	/* A skin's (or mesh's) geometry and influences. */                                        \
	X(MIN_VERTICES, "minVertices", 3)                                                          \
	X(MAX_VERTICES, "maxVertices", 1048576)                                                    \
	X(MIN_TRIANGLES, "minTriangles", 1)                                                        \
	X(MAX_TRIANGLES, "maxTriangles", 2097152)                                                  \
	X(MIN_JOINTS, "minJoints", 1)                                                              \
	X(MAX_JOINTS, "maxJoints", 256)                                                            \
	X(MIN_INFLUENCES, "minInfluences", 1)                                                      \
	X(MAX_INFLUENCES, "maxInfluences", 8)                                                      \
	/* Pins of one puppet: each pin's weight column is one solve of the mesh's */             \
	/* Laplacian and one row entry per vertex (256 pins of the largest mesh, 2 GiB). */       \
	X(MAX_PUPPET_PINS, "maxPuppetPins", 256)                                                   \
	/* A mesh binding's keys hold at most this many vertices together (keys x vertices): */   \
	/* 16 keys of the largest mesh, 256 MiB of coordinates. */                                 \
	X(MAX_MESH_KEY_VERTICES, "maxMeshKeyVertices", 16777216)                                   \
	/* Authoring (issue 25): a tessellation's grid cells per side, its coverage image */    \
	/* (pixels and side) and polygon rings, and the joints a bone chain suggests. */         \
	X(MIN_TESS_DENSITY, "minTessellateDensity", 2)                                             \
	X(MAX_TESS_DENSITY, "maxTessellateDensity", 100)                                           \
	X(MAX_IMAGE_PIXELS, "maxImagePixels", 16777216)                                            \
	X(MAX_IMAGE_SIDE, "maxImageSide", 16384)                                                   \
	X(MAX_POLYGON_POINTS, "maxPolygonPoints", 100000)                                          \
	X(MAX_SUGGEST_BONES, "maxSuggestBones", 64)                                                \
	/* Ops in one edit batch or plan. */                                                       \
	X(MAX_OPS_PER_BATCH, "maxOpsPerBatch", 10000)                                              \
	/* Items of a list page: pageSize when none is given, and its largest value. */            \
	X(DEFAULT_PAGE_SIZE, "defaultPageSize", 1000)                                              \
	X(MAX_PAGE_SIZE, "maxPageSize", 10000)                                                     \
	/* Bytes of a mesh-data page: maxBytes when none is given, and its largest value. */      \
	X(DEFAULT_PAGE_BYTES, "defaultPageBytes", 1 << 20)                                         \
	X(MAX_PAGE_BYTES, "maxPageBytes", 16 << 20)                                                \
	/* Seconds an idempotency key and its answer are kept. */                                  \
	X(IDEM_TTL_SECONDS, "idempotencyKeyTtlSeconds", 24 * 3600)                                 \
	/* Frames of one frame range or frame check. */                                            \
	X(MAX_RANGE_FRAMES, "maxRangeFrames", 100000)                                              \
	/* Vertices x frames one request's frame check evaluates at most: an edit's */             \
	/* checkFrames past it is CHECK_TOO_LARGE, a GET /check page stops there */                \
	/* (about 2 s of both cores on a 2024 laptop). */                                          \
	X(MAX_CHECK_VERTEX_FRAMES, "maxCheckVertexFrames", 200000000)                              \
	/* A shot's frameStart and frameEnd lie in [-MAX_ABS_FRAME, MAX_ABS_FRAME]: about */       \
	/* 11.5 hours at 24 fps each way, and a frame count that stays exact and finite. */        \
	X(MAX_ABS_FRAME, "maxAbsFrame", 1000000)                                                   \
	/* Follow chains (issue 27): steps a frame replays from the shot's frameStart */           \
	/* ((frame − frameStart) × substeps; about 0.1 s of one core for 32 links), and */         \
	/* the steps per frame a chain may ask for. */                                             \
	X(MAX_REPLAY_STEPS, "maxReplaySteps", 100000)                                              \
	X(MAX_CHAIN_SUBSTEPS, "maxChainSubsteps", 8)                                               \
	/* Points one map-points request maps. */                                                  \
	X(MAX_MAP_POINTS, NULL, 1000000)                                                           \
	/* Layer, project and shot names: 1 to this many bytes of UTF-8. */                        \
	X(MAX_NAME_BYTES, NULL, 256)                                                               \
	/* Frames a range stream evaluates ahead of the socket. */                                 \
	X(RANGE_WINDOW, NULL, 8)                                                                   \
	/* |sum(w) - 1| of a vertex's weights must not exceed this many DBL_EPSILON. */           \
	X(WEIGHT_SUM_EPSILONS, NULL, 64)                                                           \
	/* Fixed Newton/bisection steps of the cubic-bezier ease solver. */                        \
	X(BEZIER_ITERATIONS, NULL, 24)
/* clang-format on */

#define RIG_LIMIT_CONSTANT(name, wire, value) RIG_##name = (value),
enum rig_limit { RIG_LIMITS(RIG_LIMIT_CONSTANT) };
#undef RIG_LIMIT_CONSTANT

#endif
