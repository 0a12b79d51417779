#!/usr/bin/env python3
"""The bundled decoder of rigd frame ranges (GET /v1/shots/{shotId}/layers/{layerId}/frames),
Python 3 standard library only: import it (decode) or run it on a saved body.

    python3 rigd_frames.py [--format auto|f32|json|obj] FILE|-

Reads f32 (RIGF version 1, and version 2 with its tagged records), JSON and OBJ. Prints one line
per frame (the frame number and its vertex count) and exits 0 for a whole range. A range that
failed on the server ends with a terminator (f32 v2 error record, JSON "error" member, OBJ
"# error" line): it prints the frames before it, then "rigd_frames: the range failed at frame F:
CODE: detail" on stderr, and exits 1. A body that is cut short or malformed exits 1 too.
"""
import json
import struct
import sys

TAG_FRAME, TAG_ERROR, TAG_ORDER = 1, 2, 3


class RangeFailed(Exception):
    """The server ended the range with an error: frame, and the problem+json it carried."""

    def __init__(self, frame, problem, frames):
        self.frame, self.problem, self.frames = frame, problem, frames
        super().__init__(f"the range failed at frame {frame:g}: {problem.get('code')}: "
                         f"{problem.get('detail')}")


def _f32(data):
    if len(data) < 16 or data[:4] != b"RIGF":
        raise ValueError("not RIGF frames, or shorter than the 16-byte header")
    version, nv, nf = struct.unpack_from("<III", data, 4)
    if version not in (1, 2):
        raise ValueError(f"RIGF version {version} is not 1 or 2")
    frames, off = [], 16

    def need(n):
        if off + n > len(data):
            raise ValueError(f"the body ends inside frame {len(frames)} of {nf} "
                             f"({len(data)} bytes)")

    while len(frames) < nf:
        if version == 2:
            need(8)
            tag, length = struct.unpack_from("<II", data, off)
            off += 8
            need(length)
            if tag == TAG_ERROR:
                (frame,) = struct.unpack_from("<d", data, off)
                problem = json.loads(data[off + 8:off + length].decode("utf-8"))
                if off + length != len(data):
                    raise ValueError("bytes after the error record")
                raise RangeFailed(frame, problem, frames)
            if tag == TAG_ORDER:  # the next frame's draw order (a puppet's overlap)
                off += length
                continue
            if tag != TAG_FRAME or length != 8 + 8 * nv:
                raise ValueError(f"record {len(frames)}: tag {tag}, byteLength {length}")
        need(8 + 8 * nv)
        (frame,) = struct.unpack_from("<d", data, off)
        xy = struct.unpack_from(f"<{2 * nv}f", data, off + 8)
        off += 8 + 8 * nv
        frames.append((frame, [(xy[2 * i], xy[2 * i + 1]) for i in range(nv)]))
    if off != len(data):
        raise ValueError(f"{len(data) - off} bytes after the {nf} frames")
    return frames


def _json(data):
    body = json.loads(data.decode("utf-8"))  # a cut body does not parse
    frames = [(f["frame"], [tuple(v) for v in f["vertices"]]) for f in body["frames"]]
    if "error" in body:
        raise RangeFailed(body["error"]["frame"], body["error"]["problem"], frames)
    return frames


def _obj(data):
    frames, count = [], None
    lines = data.decode("utf-8").split("\n")
    if lines[-1] != "":
        raise ValueError("the body does not end with a whole line")
    for line in lines[:-1]:
        if line.startswith("# error "):
            err = json.loads(line[len("# error "):])
            raise RangeFailed(err["frame"], err["problem"], frames)
        if line.startswith("# rigd ") and count is None:
            words = line.split()
            count = int(words[words.index("frames,") - 1])
        elif line.startswith("o "):
            frames.append((float(line[2:].strip().removeprefix("frame_")), []))
        elif line.startswith("v "):
            x, y, _ = (float(t) for t in line.split()[1:4])
            frames[-1][1].append((x, y))
    if count is not None and len(frames) != count:
        raise ValueError(f"the body holds {len(frames)} of the {count} frames it announced")
    return frames


def decode(data, fmt="auto"):
    """The frames of a range body as [(frame, [(x, y), ...])]. Raises RangeFailed when the
    server ended it with an error, ValueError when it is cut short or malformed."""
    if fmt == "auto":
        fmt = "f32" if data[:4] == b"RIGF" else "json" if data[:1] == b"{" else "obj"
    return {"f32": _f32, "json": _json, "obj": _obj}[fmt](data)


def main(argv):
    fmt, args = "auto", argv[1:]
    if len(args) == 3 and args[0] == "--format" and args[1] in ("auto", "f32", "json", "obj"):
        fmt, args = args[1], args[2:]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args[0], "rb") as f:
                data = f.read()
        frames = decode(data, fmt)
    except RangeFailed as e:
        for frame, verts in e.frames:
            print(f"frame {frame:g}: {len(verts)} vertices")
        print(f"rigd_frames: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, IndexError, struct.error) as e:
        print(f"rigd_frames: {e}", file=sys.stderr)
        return 1
    for frame, verts in frames:
        print(f"frame {frame:g}: {len(verts)} vertices")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
