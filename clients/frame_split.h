/* Splitting a streamed frame range (GET …/layers/{id}/frames, format obj or
 * f32) into one file per frame, as the bytes arrive:
 *
 *   obj  each 'o frame_<n>' object becomes DIR/frame_<n>.obj, its face indices
 *        rebased from the range's global numbering to 1-based within the file;
 *        a '# error {"frame", "problem"}' line ends a range that failed;
 *   f32  RIGF version 1 or 2 (tagged records, an error record ends a range
 *        that failed); each frame becomes DIR/frame_<n>.f32 in the version 1
 *        layout (16-byte header "RIGF", u32 version 1, u32 vertexCount, u32
 *        frameCount = 1, then the f64 frame number and the f32 x, y pairs).
 *
 * Frame i must be from + i·step (from: the caller's, else the first frame;
 * step: the caller's, else 1), computed as the server computes it. <n> is the
 * frame number with its integer part zero-padded to the width of the range's
 * last frame and a fixed number of decimals (0 to 6, as from and step need),
 * so name order is frame order: frame_00.obj, frame_02.5.obj … A range with
 * negative frames, or frames that 6 decimals cannot tell apart, is named by
 * the zero-padded index and the frame instead: frame_007_-193.obj.
 *
 * A file is written under a temporary name and renamed when its frame is
 * complete, so a broken stream never leaves half a frame behind. HTTP and the
 * progress bar are the caller's (rigctl_frames.c).
 */
#ifndef RIG_FRAME_SPLIT_H
#define RIG_FRAME_SPLIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clients/bytes.h"

enum rig_split_format { RIG_SPLIT_OBJ, RIG_SPLIT_F32 };

struct rig_split;

/* Called after each frame file is complete. */
typedef void (*rig_split_progress)(void *ctx, const struct rig_split *s);

struct rig_split {
	enum rig_split_format format;
	const char *dir; /* borrowed */
	rig_split_progress on_frame;
	void *on_frame_ctx;
	size_t n_written;  /* frame files completed */
	size_t n_expected; /* frames the stream announced; 0 when it did not say */
	/* Set by the caller before the first feed: the range it asked for. */
	bool has_from;
	double from; /* with has_from; else the first frame */
	double step; /* 0: the server's default, 1 */
	/* How frames are named, fixed at the first frame (see above). */
	int name_decimals; /* -1: by index */
	int name_width;
	/* A range the server ended with an error: the frame and its problem. */
	json_t *problem; /* owned; NULL when none */
	double failed_frame;
	bool ended;                         /* the terminator arrived: nothing may follow */
	char first_name[96], last_name[96]; /* file names of the first and latest frame */
	char error[600];                    /* why feed or finish failed */

	/* the frame file being written */
	FILE *file;
	char path[4096], tmp_path[4096];

	/* obj */
	struct rig_bytes line; /* a line not yet ended */
	char header[256];      /* the range's comment line, without "# " */
	uint64_t verts_before; /* vertices of the earlier objects */
	uint64_t verts;        /* vertices of the current object */

	/* f32 */
	unsigned char head[16];
	size_t head_len;
	uint32_t version;
	uint32_t n_verts;
	unsigned char tag_bytes[8]; /* version 2: the record's u32 tag and byteLength */
	size_t tag_len;
	uint32_t tag;
	uint64_t record_size; /* a frame: 8 + 8 · n_verts; an error: its byteLength */
	uint64_t record_pos;  /* bytes of the current record seen (after its tag) */
	unsigned char frame_bytes[8];
};

/* Sets up a splitter writing format files into dir (borrowed; must exist).
 * on_frame (may be NULL) is called with ctx after each file. Release with
 * rig_split_release. */
void rig_split_init(struct rig_split *s, enum rig_split_format format, const char *dir,
		    rig_split_progress on_frame, void *ctx);

/* Takes the next len bytes of the body. Returns 0, or -1 with s->error set
 * (malformed stream, a file that cannot be written). */
int rig_split_feed(struct rig_split *s, const char *data, size_t len);

/* Ends the stream: completes the last frame and checks nothing is missing
 * (a partial record, fewer frames than announced). Returns 0 or -1 with
 * s->error set; a range the server ended with an error also sets s->problem
 * and s->failed_frame (the frames before it are written). */
int rig_split_finish(struct rig_split *s);

/* Frees the buffers; a frame file still open is closed and its temporary file
 * removed. Safe after finish. */
void rig_split_release(struct rig_split *s);

#endif
