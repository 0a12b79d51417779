"""The examples of README.md, docs/guide.md and clients/README.md run against a fresh rigd
(issue 21 item 5): a stale example fails here, not in a reader's terminal.

The three files are one session, in that order, against one server started with
auth on (the admin token in `rigd.db.token` beside its database), from a working
directory that holds that database, so `$(cat rigd.db.token)` and the clients'
default token file work as the README says. `build` and `clients` in that
directory link to the build the test runs (RIGD_BIN's) and to the source
clients/ folder; PATH starts with the build's clients/ and server/. The only
translations: `curl` is a wrapper that connects `localhost:8080` to the test's
port (`--connect-to`) and notes each answer's status and headers, and RIGD_URL
names the test's server (every other RIGD_* variable is cleared).

Which fenced blocks run (the marker is an HTML comment on the nearest non-blank
line before the fence, invisible on GitHub):
  ```sh       a script: each command runs, in order, in one bash session (so a
              variable set in one block is there in the next). Lines starting
              with `#` between commands are comments, except `# → ...`, the
              answer of the command before it (continued on lines starting with
              `#` and two spaces, or written at the end of the command's last
              line). Every command must exit 0, and every HTTP answer of a
              command without `# →` must be below 400.
  ```console  a transcript: `$ COMMAND` (continued while the command is
              incomplete: an open quote, a trailing backslash), then the lines
              the terminal shows. stdout and stderr are a terminal (a pty), so
              rigctl and mesh-data print tables as they do for a reader; a
              carriage return overwrites the line as a terminal does. The exit
              status is not checked (show it with `; echo "exit $?"`).
  ```json     a sample answer: the body of the last command run. With
              `<!-- file: NAME -->` before it (any language), the block's text is
              written to NAME in the working directory instead, for the commands
              after it to read.
  `<!-- not-run -->` (a reason may follow: `<!-- not-run: builds rigd -->`)
              skips a block. Untagged blocks (usage synopses, the layout tree)
              are text and are not run, so one whose line starts with `$ ` is an
              error: tag it `console`.

Matching rules:
  `# → 201 {...}  ETag: "1"`  the status (optional; the last HTTP answer of
              the command), then optionally the JSON body (the command's
              stdout), then optionally headers as `Name: value` (`…` in the
              value as in a string). `# → 201 …` checks the status only.
  JSON        a shown object is a subset: each member shown must be in the
              answer and match, members not shown are not checked (the README
              writes `…` where it leaves some out). A bare `…` as a member is
              that note; as a value it matches anything (`{…}`, `[…]` too: any
              object, any array). An array matches element for element and has
              the same length, unless its last element is `…` (then the shown
              elements are a prefix). A string with `…` in it matches any string
              with the text around each `…` (`"t-…"`). Numbers compare as
              parsed doubles, exactly.
  transcript  output that is one JSON value (over any number of lines) is
              compared as JSON, as above. Other output line for line after
              trailing spaces are stripped; a line that is just `…` stands for
              any number of lines, and `…` inside a line for any text. Volatile
              values match any value of their shape: ISO times
              (`2026-11-29T15:14:24.328Z`), token ids (`t-` and 12 hex), lock ids
              (`k-` and 16 hex) and token secrets (`rigd_` and 43 characters).
              Within one file a shown token or lock id always stands for the
              same real one, and in a later command it is replaced by that real
              one, as a reader copies a lock id from the output into the next
              command.

Every mismatch is reported (file:line, the command, expected and real), not
only the first. `python3 tests/e2e/test_readme_examples.py --show` runs the
session and prints what every command really answered, to update the README.
"""
import errno
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import termios
import time
import unittest

from rigd_harness import RIGD_BIN, ROOT, Rigd

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
DOCS = ["README.md", os.path.join("docs", "guide.md"), os.path.join("clients", "README.md")]
ELLIPSIS = "\u2026"
ARROW = "# \u2192"
STEP_TIMEOUT = 120
SHOW = False  # --show: print every real answer

# Shapes whose values differ on every run; a shown one matches any of its shape.
# Those with a name keep one real value per shown value within a file.
VOLATILE = [
    (None, r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z"),
    ("token", r"t-[0-9a-f]{12}"),
    ("lock", r"k-[0-9a-f]{16}"),
    (None, r"rigd_[A-Za-z0-9_-]{43}"),
]
VOLATILE_RE = re.compile("|".join(f"({p})" for _, p in VOLATILE))


# ---- reading the documents ----

class Block:
    def __init__(self, doc, line, lang, text, marker):
        self.doc, self.line, self.lang, self.text, self.marker = doc, line, lang, text, marker

    def where(self, offset=0):
        return f"{self.doc}:{self.line + offset}"


def read_blocks(doc):
    """The fenced blocks of a Markdown file, each with its language and marker."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if j == len(lines):
            raise AssertionError(f"{doc}:{start + 1}: the fence is never closed")
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mk = re.match(r"^<!--\s*(not-run|file:\s*(\S+))\b.*-->\s*$", lines[k]) if k >= 0 else None
        marker = None
        if mk:
            marker = ("file", mk.group(2)) if mk.group(2) else ("not-run", None)
        # line numbers of the block's text start at the line after the fence
        blocks.append(Block(doc, start + 2, lang, "\n".join(lines[start + 1:j]), marker))
        i = j + 1
    return blocks


def is_complete(command):
    """Whether a shell command's text is whole (no open quote, no trailing backslash)."""
    if command.rstrip().endswith("\\"):
        return False
    r = subprocess.run(["bash", "-n", "-c", command], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode == 0 or "unexpected end of file" not in r.stderr and \
        "unexpected EOF" not in r.stderr


def split_arrow(line):
    """A command line's text and the `# → ...` written at its end, if any."""
    m = re.search(r"\s" + re.escape(ARROW) + r"(\s|$)", line)
    if not m:
        return line, None
    return line[:m.start()].rstrip(), line[m.end():].strip()


class Step:
    """One command: its text, where it is, and what the document says it answers."""

    def __init__(self, block, offset, kind):
        self.block, self.offset, self.kind = block, offset, kind
        self.lines = []
        self.complete = False  # whether lines hold a whole command yet
        self.answer = None     # sh: the `# →` text
        self.answer_open = False  # sh: whether the next `#  ` line continues it
        self.output = []       # console: the lines shown after the command

    @property
    def command(self):
        return "\n".join(self.lines)

    def where(self):
        return self.block.where(self.offset)


def sh_steps(block):
    steps, cur, lines = [], None, block.text.split("\n")
    for n, line in enumerate(lines):
        if cur is not None and not cur.complete:
            text, arrow = split_arrow(line)
            cur.lines.append(text)
            if is_complete(cur.command):
                cur.complete = True
                if arrow is not None:
                    cur.answer = arrow
            continue
        stripped = line.strip()
        if not stripped:
            if steps:
                steps[-1].answer_open = False
            continue
        if stripped.startswith(ARROW):
            if not steps:
                raise AssertionError(f"{block.where(n)}: `# →` before any command")
            steps[-1].answer = stripped[len(ARROW):].strip()
            steps[-1].answer_open = True
            continue
        if stripped.startswith("#"):
            if steps and steps[-1].answer_open and re.match(r"#\s\s", stripped):
                steps[-1].answer += " " + stripped[1:].strip()
            elif steps:
                steps[-1].answer_open = False
            continue
        if stripped.startswith("$ "):
            raise AssertionError(f"{block.where(n)}: a `$ ` prompt in a sh block: make it "
                                 "a console block")
        if steps:
            steps[-1].answer_open = False
        cur = Step(block, n, "sh")
        text, arrow = split_arrow(line)
        cur.lines.append(text)
        cur.complete = is_complete(cur.command)
        if cur.complete and arrow is not None:
            cur.answer = arrow
        steps.append(cur)
    if cur is not None and not cur.complete:
        raise AssertionError(f"{cur.where()}: the command never ends")
    return steps


def console_steps(block):
    steps, cur = [], None
    for n, line in enumerate(block.text.split("\n")):
        if cur is not None and not cur.complete:
            cur.lines.append(line)
            cur.complete = is_complete(cur.command)
            continue
        if line.startswith("$ "):
            cur = Step(block, n, "console")
            cur.lines.append(line[2:])
            cur.complete = is_complete(cur.command)
            steps.append(cur)
        elif cur is None:
            if line.strip():
                raise AssertionError(f"{block.where(n)}: output before any `$ ` command")
        else:
            cur.output.append(line.rstrip())
    if cur is not None and not cur.complete:
        raise AssertionError(f"{cur.where()}: the command never ends")
    for s in steps:
        while s.output and not s.output[-1]:
            s.output.pop()
    return steps


# ---- shown JSON ----

def shown_json(text):
    """Parses shown JSON in which a bare `…` is a placeholder; returns (value, rest)."""
    out, stack, in_str, esc = [], [], False, False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            out.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif ch in "{[":
            stack.append(ch)
            out.append(ch)
        elif ch in "}]":
            if stack:
                stack.pop()
            out.append(ch)
            if not stack:
                i += 1
                break
        elif ch == ELLIPSIS:
            out.append(f'"{ELLIPSIS}": "{ELLIPSIS}"' if stack and stack[-1] == "{"
                       else f'"{ELLIPSIS}"')
        else:
            out.append(ch)
        i += 1
    return json.loads("".join(out)), text[i:]


def match_json(shown, real, path="$"):
    """The differences between a shown JSON value and the real one (rules above)."""
    if shown == ELLIPSIS:
        return []
    if isinstance(shown, str) and ELLIPSIS in shown:
        pattern = ".*".join(re.escape(p) for p in shown.split(ELLIPSIS))
        if isinstance(real, str) and re.fullmatch(pattern, real, re.S):
            return []
        return [f"{path}: shown {shown!r}, real {real!r}"]
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return [f"{path}: shown an object, real {json.dumps(real)[:200]}"]
        diffs = []
        for k, v in shown.items():
            if k == ELLIPSIS:
                continue
            if k not in real:
                diffs.append(f"{path}.{k}: shown, not in the answer")
            else:
                diffs += match_json(v, real[k], f"{path}.{k}")
        return diffs
    if isinstance(shown, list):
        if not isinstance(real, list):
            return [f"{path}: shown an array, real {json.dumps(real)[:200]}"]
        prefix = bool(shown) and shown[-1] == ELLIPSIS
        items = shown[:-1] if prefix else shown
        if len(real) < len(items) or (not prefix and len(real) != len(items)):
            return [f"{path}: shown {len(items)}{'+' if prefix else ''} items, "
                    f"real {len(real)}: {json.dumps(real)[:300]}"]
        diffs = []
        for i, v in enumerate(items):
            diffs += match_json(v, real[i], f"{path}[{i}]")
        return diffs
    same = type(shown) is type(real) or (
        isinstance(shown, (int, float)) and isinstance(real, (int, float))
        and not isinstance(shown, bool) and not isinstance(real, bool))
    if not same or shown != real:
        return [f"{path}: shown {json.dumps(shown)}, real {json.dumps(real)}"]
    return []


# ---- transcripts ----

def line_pattern(line, names):
    """A regex for one shown transcript line; `names` collects the bound groups."""
    out, pos, n = [], 0, 0
    for m in VOLATILE_RE.finditer(line):
        out.append(_literal(line[pos:m.start()]))
        kind = next(VOLATILE[i][0] for i in range(len(VOLATILE)) if m.group(i + 1))
        regex = next(VOLATILE[i][1] for i in range(len(VOLATILE)) if m.group(i + 1))
        if kind:
            out.append(f"(?P<v{n}>{regex})")
            names.append((f"v{n}", m.group(0)))
            n += 1
        else:
            out.append(f"(?:{regex})")
        pos = m.end()
    out.append(_literal(line[pos:]))
    return re.compile("".join(out))


def _literal(text):
    return ".*?".join(re.escape(p) for p in text.split(ELLIPSIS))


def match_lines(shown, real, bindings):
    """Whether the real lines match the shown ones; binds shown ids to real ones."""
    def rec(i, j, bound):
        if i == len(shown):
            return bound if j == len(real) else None
        if shown[i].strip() == ELLIPSIS:
            for k in range(j, len(real) + 1):
                got = rec(i + 1, k, bound)
                if got is not None:
                    return got
            return None
        if j == len(real):
            return None
        names = []
        m = line_pattern(shown[i], names).fullmatch(real[j])
        if not m:
            return None
        new = dict(bound)
        for group, shown_id in names:
            if new.get(shown_id, m.group(group)) != m.group(group):
                return None
            if any(s != shown_id and r == m.group(group) for s, r in new.items()):
                return None
            new[shown_id] = m.group(group)
        return rec(i + 1, j + 1, new)
    got = rec(0, 0, bindings)
    if got is None:
        return False
    bindings.update(got)
    return True


def terminal_text(raw):
    """What a terminal shows for raw output: a carriage return overwrites its line."""
    lines = []
    for line in raw.replace("\r\n", "\n").split("\n"):
        screen = ""
        for part in line.split("\r"):
            screen = part + screen[len(part):]
        lines.append(screen.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


# ---- running ----

CURL_WRAPPER = """#!/bin/bash
# curl as the README runs it: localhost:8080 is the test's rigd; each answer's
# status and headers are appended to $RIGD_README_HTTP_LOG.
err=$(mktemp)
{real} --connect-to localhost:8080:127.0.0.1:{port} \\
  -w '%{{stderr}}@@rigd-readme@@%{{http_code}} %{{header_json}}@@end@@\\n' "$@" 2>"$err"
rc=$?
cat "$err" >>"$RIGD_README_HTTP_LOG"
sed '/@@rigd-readme@@/,/@@end@@/d' "$err" >&2
rm -f "$err"
exit $rc
"""


class Session:
    """A rigd with auth on, a working directory beside its database, one bash."""

    def __init__(self):
        self.rigd = Rigd(auth=True).start()
        self.dir = self.rigd.tmp
        os.symlink(BUILD, os.path.join(self.dir, "build"))
        os.symlink(os.path.join(ROOT, "clients"), os.path.join(self.dir, "clients"))
        self.meta = os.path.join(self.dir, ".readme")
        os.mkdir(self.meta)
        real_curl = shutil.which("curl")
        if not real_curl:
            raise RuntimeError("curl is not installed (scripts/install-deps.sh installs it)")
        wrapper = os.path.join(self.meta, "curl")
        with open(wrapper, "w") as f:
            f.write(CURL_WRAPPER.format(real=real_curl, port=self.rigd.port))
        os.chmod(wrapper, 0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
        env.update(RIGD_URL=f"http://127.0.0.1:{self.rigd.port}",
                   RIGD_README_HTTP_LOG=os.path.join(self.meta, "http"),
                   PATH=os.pathsep.join([self.meta, os.path.join(BUILD, "clients"),
                                         os.path.join(BUILD, "server"), env.get("PATH", "")]),
                   LC_ALL="C.UTF-8", TERM="dumb")
        self.master, self.slave = pty.openpty()
        attrs = termios.tcgetattr(self.slave)
        attrs[1] &= ~termios.OPOST  # the bytes as written, no \n → \r\n
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        self.tty = os.ttyname(self.slave)
        self.bash_err = os.path.join(self.meta, "bash.err")
        self._bash_err_file = open(self.bash_err, "wb")
        self.bash = subprocess.Popen(
            ["bash", "--norc", "--noprofile"], cwd=self.dir, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=self._bash_err_file)

    def close(self):
        if self.bash.poll() is None:
            self.bash.stdin.close()
            try:
                self.bash.wait(10)
            except subprocess.TimeoutExpired:
                self.bash.kill()
                self.bash.wait()
        self._bash_err_file.close()
        os.close(self.master)
        os.close(self.slave)
        self.rigd.cleanup()

    def run(self, step, bindings):
        """Runs one command, the shown ids in it replaced by the real ones they matched
        before (a reader copies a lock id from the output); returns (exit code, output,
        [(status, headers)])."""
        command = step.command
        for shown, real in bindings.items():
            command = command.replace(shown, real)
        out, err = os.path.join(self.meta, "out"), os.path.join(self.meta, "err")
        http = os.path.join(self.meta, "http")
        for p in (out, err, http):
            open(p, "w").close()
        if step.kind == "sh":
            redirect = f'>"{out}" 2>"{err}"'
        else:
            redirect = f'>"{self.tty}" 2>&1'
        script = (f"{{ {command}\n}} </dev/null {redirect}\n"
                  f"printf '\\036%s\\036\\n' \"$?\" >\"{self.tty}\"\n")
        self.bash.stdin.write(script.encode())
        self.bash.stdin.flush()
        raw = self._read_until_done(step)
        m = re.search(r"\x1e(\d+)\x1e\n$", raw)
        rc, shown = int(m.group(1)), raw[:m.start()]
        with open(http, encoding="utf-8", errors="replace") as f:
            answers = [(int(s), json.loads(h)) for s, h in
                       re.findall(r"@@rigd-readme@@(\d{3}) (.*?)@@end@@", f.read(), re.S)]
        if step.kind == "sh":
            with open(out, encoding="utf-8", errors="replace") as f:
                shown = f.read()
            with open(err, encoding="utf-8", errors="replace") as f:
                self.last_err = f.read()
        return rc, shown, answers

    def _read_until_done(self, step):
        buf, deadline = b"", time.time() + STEP_TIMEOUT
        while not re.search(rb"\x1e\d+\x1e\n$", buf):
            if self.bash.poll() is not None:
                with open(self.bash_err) as f:
                    raise AssertionError(f"{step.where()}: bash exited: {f.read()}")
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"{step.where()}: no end after {STEP_TIMEOUT} s: "
                                     f"{step.command}")
            ready, _, _ = select.select([self.master], [], [], min(left, 1))
            if ready:
                try:
                    buf += os.read(self.master, 65536)
                except OSError as e:
                    if e.errno != errno.EIO:
                        raise
        return buf.decode("utf-8", "replace")


def check_doc(session, doc, failures):
    """Runs one document's blocks in order; appends every mismatch to failures."""
    bindings, last_body, counts = {}, None, {"steps": 0, "compared": 0}

    def fail(where, command, message):
        failures.append(f"{where}: {message}\n    command: {command.strip()[:400]}")

    for block in read_blocks(doc):
        if block.marker and block.marker[0] == "not-run":
            continue
        if block.marker and block.marker[0] == "file":
            with open(os.path.join(session.dir, block.marker[1]), "w") as f:
                f.write(block.text + "\n")
            continue
        if block.lang == "json":
            counts["compared"] += 1
            if last_body is None:
                failures.append(f"{block.where()}: a json sample with no command before it")
                continue
            try:
                shown, rest = shown_json(block.text)
                real = json.loads(last_body)
            except ValueError as e:
                failures.append(f"{block.where()}: not JSON ({e}): {last_body[:300]}")
                continue
            for d in match_json(shown, real):
                failures.append(f"{block.where()}: the sample differs from the answer: {d}")
            continue
        if block.lang in ("sh", "console"):
            try:
                steps = sh_steps(block) if block.lang == "sh" else console_steps(block)
            except AssertionError as e:
                failures.append(str(e))
                continue
        else:
            for n, line in enumerate(block.text.split("\n")):
                if line.startswith("$ "):
                    failures.append(f"{block.where(n)}: a `$ ` command in an untagged block: "
                                    "tag it console (or mark it <!-- not-run -->)")
                    break
            continue
        for step in steps:
            counts["steps"] += 1
            rc, out, answers = session.run(step, bindings)
            if SHOW:
                print(f"--- {step.where()} (exit {rc})\n{step.command}")
                for status, headers in answers:
                    print(f"  HTTP {status} etag={headers.get('etag')}")
                print(out if step.kind == "sh" else "\n".join(terminal_text(out)))
            if step.kind == "console":
                real = terminal_text(out)
                counts["compared"] += 1 if step.output else 0
                if one_json_value(step.output):
                    check_json_output(step, "\n".join(step.output), "\n".join(real), fail)
                elif not match_lines(step.output, real, bindings):
                    fail(step.where(), step.command,
                         "the transcript differs\n    shown:\n      " +
                         "\n      ".join(step.output) + "\n    real:\n      " +
                         "\n      ".join(real))
                continue
            last_body = out
            if rc != 0:
                fail(step.where(), step.command,
                     f"exit {rc}: {out[:300]} {session.last_err[:600]}")
            if step.answer is None:
                for status, _ in answers:
                    if status >= 400:
                        fail(step.where(), step.command,
                             f"answered {status} (show it with `# → {status} …`): {out[:600]}")
                continue
            counts["compared"] += 1
            check_answer(step, out, answers, fail)
    return counts


def one_json_value(lines):
    """Whether shown output lines are one JSON value (an ndjson list is not)."""
    text = "\n".join(lines).strip()
    if not text.startswith(("{", "[")):
        return False
    try:
        return not shown_json(text)[1].strip()
    except ValueError:
        return False


def check_json_output(step, shown_doc, real_doc, fail):
    """A transcript whose output is one JSON value is compared as JSON."""
    shown, _ = shown_json(shown_doc)
    try:
        real = json.loads(real_doc)
    except ValueError:
        return fail(step.where(), step.command, f"the output is not JSON: {real_doc[:600]}")
    for d in match_json(shown, real):
        fail(step.where(), step.command, f"the output differs: {d}")


def check_answer(step, out, answers, fail):
    m = re.match(r"(\d{3})?\s*(.*)$", step.answer, re.S)
    status, rest = m.group(1), m.group(2).strip()
    if status:
        if not answers:
            return fail(step.where(), step.command, "a status is shown but nothing was asked")
        if answers[-1][0] != int(status):
            fail(step.where(), step.command,
                 f"shown status {status}, real {answers[-1][0]}: {out[:600]}")
    if rest.startswith(ELLIPSIS):
        return
    if rest.startswith(("{", "[")):
        try:
            shown, rest = shown_json(rest)
        except ValueError as e:
            return fail(step.where(), step.command, f"the shown answer is not JSON: {e}")
        try:
            real = json.loads(out)
        except ValueError:
            return fail(step.where(), step.command, f"the answer is not JSON: {out[:300]}")
        for d in match_json(shown, real):
            fail(step.where(), step.command, f"the answer differs: {d}")
    rest = rest.strip()
    for name, value in re.findall(r"([A-Za-z][A-Za-z0-9-]*): (\S+)", rest):
        got = (answers[-1][1].get(name.lower()) or [None])[-1] if answers else None
        if got is None or not re.fullmatch(_literal(value), got):
            fail(step.where(), step.command, f"shown header {name}: {value}, real {got}")
    if re.sub(r"([A-Za-z][A-Za-z0-9-]*): (\S+)", "", rest).strip():
        fail(step.where(), step.command, f"cannot read the shown answer {rest!r}")


class ReadmeExamples(unittest.TestCase):
    def test_readme_then_clients_readme(self):
        """README.md's session, then docs/guide.md's and clients/README.md's on the same
        server."""
        if not os.access(os.path.join(BUILD, "clients", "rigctl"), os.X_OK):
            raise RuntimeError(f"rigctl is not built in {BUILD}/clients")
        session = Session()
        failures, counts = [], {}
        try:
            for doc in DOCS:
                counts[doc] = check_doc(session, doc, failures)
        finally:
            session.close()
        if failures:
            self.fail(f"{len(failures)} example(s) differ from the real server:\n\n" +
                      "\n\n".join(failures))
        # A parser that found nothing must not pass: each file has a dozen commands or more,
        # most with the answer they give.
        for doc, c in counts.items():
            self.assertGreater(c["steps"], 12, (doc, c))
            self.assertGreater(c["compared"], 12, (doc, c))


class Matching(unittest.TestCase):
    """The rules the session relies on, on small cases."""

    def test_json_subset_and_placeholders(self):
        shown, rest = shown_json('{"a":1,"b":[…],"c":{…},"d":"t-…",…}   ETag: "1"')
        self.assertEqual(rest.strip(), 'ETag: "1"')
        self.assertEqual(match_json(shown, {"a": 1.0, "b": [1], "c": {}, "d": "t-x", "e": 0}), [])
        self.assertTrue(match_json(shown, {"a": 2, "b": [], "c": {}, "d": "t-x"}))
        self.assertTrue(match_json(shown, {"a": 1, "b": [], "c": {}, "d": "x-t"}))
        self.assertTrue(match_json(shown, {"a": 1, "b": [], "c": {}}))
        self.assertTrue(match_json(shown_json("[1,2]")[0], [1, 2, 3]))
        self.assertEqual(match_json(shown_json("[1,…]")[0], [1, 2, 3]), [])
        self.assertTrue(match_json(shown_json("[true]")[0], [1]))

    def test_transcript_lines(self):
        b = {}
        self.assertTrue(match_lines(["lock k-0000000000000000 at 2026-01-01T00:00:00.000Z", "…",
                                     "end k-0000000000000000"],
                                    ["lock k-1234567890abcdef at 2027-05-05T01:02:03.456Z",
                                     "x", "y", "end k-1234567890abcdef"], b))
        self.assertFalse(match_lines(["k-0000000000000000"], ["k-fedcba0987654321"], b))
        self.assertTrue(match_lines(["a … b"], ["a anything b"], {}))
        self.assertFalse(match_lines(["a", "b"], ["a"], {}))
        self.assertEqual(terminal_text("frames [..] 0/5\rframes [##] 5/5\nwrote\n"),
                         ["frames [##] 5/5", "wrote"])


if __name__ == "__main__":
    if "--show" in sys.argv:
        sys.argv.remove("--show")
        SHOW = True
    unittest.main(verbosity=2)
