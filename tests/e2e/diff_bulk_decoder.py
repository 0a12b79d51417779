"""Differential check of api/edit/bulk.c (not a ctest: it needs a second binary).

Sends the same mutated skin bodies (random byte edits of a valid layer.skin batch
and of a /v1/skin/evaluate body, plus structured breakages: wrong shapes, key
order, 9 influences, unknown joints, zero weights, huge and fractional indices)
to a rigd built before the bulk decoder (every array through jansson) and to
this build; every problem answer must be byte-identical (dry runs).

    OLD_RIGD=/path/to/old/rigd python3 tests/e2e/diff_bulk_decoder.py [SEED] [COUNT]
"""
import json, random, sys, os
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rigd_harness
from rigd_harness import Rigd

def start(bin_path):
    rigd_harness.RIGD_BIN = bin_path
    r = Rigd().start()
    r.make_shot("p1", "s1")
    r.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"},
                  {"op": "layer.create", "layerId": "b", "name": "b", "kind": "group"},
                  {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
    return r

old = start(os.environ["OLD_RIGD"])
new = start(os.environ.get("NEW_RIGD", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "server", "rigd")))
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = 4
src = [{"x": i % N, "y": i // N} for i in range(N * N)]
tris = []
for y in range(N - 1):
    for x in range(N - 1):
        i = y * N + x
        tris += [[i, i + 1, i + N + 1], [i, i + N + 1, i + N]]
wts = [[{"jointId": "j1", "weight": 0.25}, {"jointId": "j2", "weight": 0.75}] for _ in range(N * N)]
skin = {"source": src, "triangles": tris,
        "joints": [{"id": "j1", "bind": [1, 0, 0, 1, 0, 0]}, {"id": "j2", "bind": [1, 0, 0, 1, 0, 0]}],
        "jointLayers": [{"jointId": "j1", "layerId": "a"}, {"jointId": "j2", "layerId": "b"}],
        "weights": wts}
TOKENS = [b",", b"[", b"]", b"{", b"}", b":", b'"', b"\\", b"-", b".", b"e", b"1e999", b"-0", b"1.5",
          b"01", b"1234567890123456789", b"99999999999", b"-1", b" ", b"\n", b"\t", b"\r",
          b'"x"', b'"y"', b'"jointId"', b'"weight"', b'"\\u0078"', b"null", b"true", b'"j3"',
          b'"j1"', b"\x00", b"\xff", b"\xc3\xa9", b"[]", b"{}", b"1E+2", b"2e-400", b"0.0"]

def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        pos = rng.randrange(len(data))
        if kind < 0.3:
            del data[pos:pos + rng.randint(1, 3)]
        elif kind < 0.7:
            data[pos:pos] = rng.choice(TOKENS)
        else:
            data[pos:pos + 1] = rng.choice(TOKENS)
    return bytes(data)

def structured():
    s = json.loads(json.dumps(skin))
    k = rng.randrange(17)
    v = rng.randrange(N * N)
    if k == 0: s["source"][v] = {"x": 1, "y": 2, "z": 3}
    elif k == 1: s["triangles"][rng.randrange(len(tris))] = [1.0, 2, 3]
    elif k == 2: s["triangles"][rng.randrange(len(tris))] = [-1, 2, 3]
    elif k == 3: s["weights"][v] = [{"jointId": "j%d" % (i % 3 + 1), "weight": 0.1} for i in range(9)]
    elif k == 4: s["weights"][v][0]["jointId"] = "nope"
    elif k == 5: s["weights"][v] = []
    elif k == 6: s["source"] = s["source"][:2]; s["weights"] = s["weights"][:2]
    elif k == 7: s["triangles"].append([0, 0, 1])
    elif k == 8: s["weights"][v][1]["weight"] = 0.5
    elif k == 9: s["source"][v]["x"] = 1e300 * 10 if False else 1e308
    elif k == 10: s["weights"][v][0]["jointId"] = "x" * 70
    elif k == 11: s["triangles"][0] = [0, 1, 4294967295]
    elif k == 12:
        for w in s["weights"]: w[0]["weight"] = 0
    elif k == 13:
        s["weights"] = [[{"weight": i["weight"], "jointId": i["jointId"]} for i in w] for w in s["weights"]]
        s["source"] = [{"y": p["y"], "x": p["x"]} for p in s["source"]]
    elif k == 14:
        s["triangles"] = [[t[0], t[0], t[1]] for t in s["triangles"]]
    elif k == 15:
        s["weights"][v] = [{"jointId": "zz%d" % i, "weight": 0.125} for i in range(8)]
    else:
        s["source"] = [{"x": p["x"] * 1e-320, "y": -0.0} for p in s["source"]]
    return s

def compare(path, data):
    a, b = old.post(path, raw=data), new.post(path, raw=data)
    ja = a.body.replace(b"req-", b"").decode("utf-8", "replace")
    jb = b.body.replace(b"req-", b"").decode("utf-8", "replace")
    # receipts carry times and ids: compare status and problem bodies only
    if a.status != b.status or (a.status >= 400 and ja != jb):
        print("DIFF", path, a.status, b.status, data[:400], "\n old:", a.body[:400], "\n new:", b.body[:400])
        return False
    return True

def edit_body(s):
    return json.dumps({"ops": [{"op": "layer.skin", "layerId": "m", "skin": s}]}).encode()

def eval_body(s):
    s = {k: v for k, v in s.items() if k != "jointLayers"}
    return json.dumps(s).encode()

base_e, base_s = edit_body(skin), eval_body(skin)
ok = compare("/v1/shots/s1/edits?dryRun=true", base_e) and compare("/v1/skin/evaluate", base_s)
n_bad = 0
count = int(sys.argv[2]) if len(sys.argv) > 2 else 600
for i in range(count):
    if i % 3 == 0:
        s = structured()
        data_e, data_s = edit_body(s), eval_body(s)
        if rng.random() < 0.5:
            data_e = data_e.replace(b", ", b",\n  ").replace(b": ", b" :\t")
    else:
        data_e, data_s = mutate(base_e), mutate(base_s)
    n_bad += not compare("/v1/shots/s1/edits?dryRun=true", data_e)
    n_bad += not compare("/v1/skin/evaluate", data_s)
print("cases", 2 * count, "differences", n_bad)
old.cleanup(); new.cleanup()
