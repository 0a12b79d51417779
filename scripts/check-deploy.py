#!/usr/bin/env python3
"""Static checks of deploy/ (ctest deploy_files; issue 21 item 7): no container engine or
systemd runs in CI, so the files are read, not run.

  deploy/Containerfile  the stage that runs the build installs every package that
                        `scripts/install-deps.sh --list --build` prints, by running that
                        script (copied into the image first) or by naming them all in
                        `apt-get install`; the final stage has USER other than root, a
                        VOLUME, and a HEALTHCHECK on /healthz.
  deploy/*.service      each unit creates its user on a fresh host: DynamicUser=yes, or a
                        User= declared by a sysusers.d file in deploy/ (`u NAME ...`); it
                        has StateDirectory= (its data directory, made at start); and
                        `systemd-analyze verify` (when installed) accepts it, with ExecStart
                        pointed at an executable that exists (RIGD_BIN, else /bin/true).
  deploy/**/*.yaml      every file parses as YAML (PyYAML); there is at least one pod
                        template (Deployment, StatefulSet, DaemonSet) and each of its
                        containers has an httpGet livenessProbe on /healthz and
                        readinessProbe on /readyz, and the pod runs as non-root.

Usage: scripts/check-deploy.py [DEPLOY_DIR]   (default: the repository's deploy/)
Exits 1 naming every problem, 0 when there is none.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL_DEPS = os.path.join(ROOT, "scripts", "install-deps.sh")


def rel(path):
    """A path as the messages name it: from the repository root when it is inside it."""
    r = os.path.relpath(path, ROOT)
    return path if r.startswith("..") else r


def build_packages():
    out = subprocess.run(["bash", INSTALL_DEPS, "--list", "--build"], check=True,
                         capture_output=True, text=True).stdout
    pkgs = out.split()
    if not pkgs:
        raise SystemExit("check-deploy: install-deps.sh --list --build printed nothing")
    return pkgs


# ---- Containerfile ----

def instructions(path):
    """(line number, INSTRUCTION, arguments) with continuations joined, comments dropped."""
    out, buf, start = [], "", None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if not buf and (not stripped or stripped.startswith("#")):
                continue
            if buf and stripped.startswith("#"):
                continue  # a comment inside a continued instruction
            if start is None:
                start = n
            if stripped.endswith("\\"):
                buf += stripped[:-1] + " "
                continue
            buf += stripped
            word, _, rest = buf.partition(" ")
            out.append((start, word.upper(), rest.strip()))
            buf, start = "", None
    return out


def stages(instrs):
    """The stages of a multi-stage file: [{"name", "line", "instrs"}]."""
    result = []
    for n, word, rest in instrs:
        if word == "FROM":
            m = re.search(r"\s+AS\s+(\S+)\s*$", rest, re.I)
            result.append({"name": m.group(1) if m else str(len(result)), "line": n,
                           "instrs": []})
        elif result:
            result[-1]["instrs"].append((n, word, rest))
    return result


def shell_commands(run_args):
    """The simple commands of a RUN's shell text, each as a list of words."""
    try:
        words = shlex.split(run_args, posix=True)
    except ValueError:
        words = run_args.split()
    cmds, cur = [], []
    for w in words:
        if w in ("&&", "||", ";", "|"):
            if cur:
                cmds.append(cur)
            cur = []
        elif w.endswith(";") and len(w) > 1:
            cur.append(w[:-1])
            cmds.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        cmds.append(cur)
    return cmds


def check_containerfile(path, problems):
    name = rel(path)
    st = stages(instructions(path))
    if not st:
        problems.append(f"{name}: no FROM")
        return
    builders = [s for s in st if any(w == "RUN" and "cmake --build" in r
                                     for _, w, r in s["instrs"])]
    if not builders:
        problems.append(f"{name}: no stage runs `cmake --build`")
    for s in builders:
        installed, script_paths, runs_script = set(), set(), False
        for n, word, rest in s["instrs"]:
            if word == "COPY":
                parts = [w for w in rest.split() if not w.startswith("--")]
                if len(parts) >= 2 and any(p.endswith("install-deps.sh") for p in parts[:-1]):
                    dest = parts[-1]
                    dest = dest + "install-deps.sh" if dest.endswith("/") else dest
                    script_paths.update({dest, os.path.basename(dest)})
                elif len(parts) >= 2 and "." in parts[:-1]:
                    script_paths.add("scripts/install-deps.sh")  # the whole tree
                continue
            if word != "RUN":
                continue
            if "cmake --build" in rest:
                break  # packages installed after the build do not count
            for cmd in shell_commands(rest):
                words = cmd[1:] if cmd and cmd[0] in ("bash", "sh") else cmd
                if "apt-get" in cmd and "install" in cmd:
                    after = cmd[cmd.index("install") + 1:]
                    installed.update(w for w in after if not w.startswith("-"))
                elif words and any(words[0] == p or words[0].endswith("/" + p)
                                   for p in script_paths):
                    runs_script = True  # it installs its own list (all of it without --build)
        if runs_script:
            continue
        missing = [p for p in build_packages() if p not in installed]
        if missing:
            problems.append(
                f"{name}:{s['line']}: the build stage '{s['name']}' does not install "
                f"{', '.join(missing)} before it builds (scripts/install-deps.sh --build lists "
                "them: run it in the stage, or install them)")
    final = st[-1]
    users = [(n, r) for n, w, r in final["instrs"] if w == "USER"]
    if not users:
        problems.append(f"{name}: the final stage has no USER (it would run as root)")
    elif users[-1][1].split(":")[0] in ("root", "0"):
        problems.append(f"{name}:{users[-1][0]}: USER {users[-1][1]} is root")
    if not any(w == "VOLUME" for _, w, _ in final["instrs"]):
        problems.append(f"{name}: the final stage declares no VOLUME for the database")
    checks = [(n, r) for n, w, r in final["instrs"] if w == "HEALTHCHECK"]
    if not checks:
        problems.append(f"{name}: the final stage has no HEALTHCHECK")
    elif "/healthz" not in checks[-1][1] or checks[-1][1].strip().upper() == "NONE":
        problems.append(f"{name}:{checks[-1][0]}: the HEALTHCHECK does not ask /healthz")


# ---- systemd ----

def unit_settings(path):
    settings, section = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            key, _, value = line.partition("=")
            settings.append((section, key.strip(), value.strip()))
    return settings


def sysusers(deploy):
    users = {}
    for path in glob.glob(os.path.join(deploy, "**", "*.conf"), recursive=True):
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = shlex.split(line, comments=True)
                if len(parts) >= 2 and parts[0] in ("u", "u!"):
                    users[parts[1]] = parts
    return users


def check_unit(path, deploy, problems):
    name = rel(path)
    svc = {k: v for s, k, v in unit_settings(path) if s == "Service"}
    dynamic = svc.get("DynamicUser", "").lower() in ("yes", "true", "1", "on")
    user = svc.get("User")
    declared = sysusers(deploy)
    if not dynamic:
        if not user:
            problems.append(f"{name}: runs as root (no User=, no DynamicUser=yes)")
        elif user not in declared:
            problems.append(f"{name}: User={user} is not created on a fresh host: set "
                            "DynamicUser=yes or install a sysusers.d file declaring it")
    if "StateDirectory" not in svc:  # sysusers.d makes no home directory
        problems.append(f"{name}: no StateDirectory= (the directory of the database, owned by "
                        "the service's user, made on the first start)")
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        print(f"check-deploy: systemd-analyze is not installed; {name} not verified")
        return
    exe = os.environ.get("RIGD_BIN") or "/bin/true"
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(copy, "w", encoding="utf-8") as f:
            f.write(re.sub(r"(?m)^ExecStart=(\S+)", lambda m: f"ExecStart={exe}", text))
        r = subprocess.run([analyze, "verify", copy], capture_output=True, text=True)
        report = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or report:
            problems.append(f"{name}: systemd-analyze verify: {report or 'exit %d' % r.returncode}")


# ---- Kubernetes ----

def check_manifests(deploy, problems):
    try:
        import yaml
    except ImportError:
        problems.append("PyYAML is not installed (python3-yaml; scripts/install-deps.sh)")
        return
    files = sorted(glob.glob(os.path.join(deploy, "**", "*.yaml"), recursive=True) +
                   glob.glob(os.path.join(deploy, "**", "*.yml"), recursive=True))
    pods = 0
    for path in files:
        name = rel(path)
        try:
            with open(path, encoding="utf-8") as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            problems.append(f"{name}: not YAML: {e}")
            continue
        for doc in docs:
            if not isinstance(doc, dict) or doc.get("kind") not in (
                    "Deployment", "StatefulSet", "DaemonSet"):
                continue
            pods += 1
            what = f"{name}: {doc['kind']} {doc.get('metadata', {}).get('name')}"
            spec = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
            pod_sc = spec.get("securityContext") or {}
            for c in spec.get("containers") or []:
                cname = f"{what} container {c.get('name')}"
                for probe, path_want in (("livenessProbe", "/healthz"),
                                         ("readinessProbe", "/readyz")):
                    got = ((c.get(probe) or {}).get("httpGet") or {}).get("path")
                    if got != path_want:
                        problems.append(f"{cname}: {probe} is not an httpGet of {path_want} "
                                        f"(it is {got!r})")
                sc = c.get("securityContext") or {}
                non_root = sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
                uid = sc.get("runAsUser", pod_sc.get("runAsUser"))
                if not non_root and not (isinstance(uid, int) and uid > 0):
                    problems.append(f"{cname}: may run as root (no runAsNonRoot or runAsUser)")
    if not files:
        problems.append(f"{rel(deploy)}: no Kubernetes manifests (*.yaml)")
    elif not pods:
        problems.append(f"{rel(deploy)}: no Deployment, StatefulSet or "
                        "DaemonSet in the manifests")


def main():
    deploy = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "deploy")
    problems = []
    container = os.path.join(deploy, "Containerfile")
    if os.path.exists(container):
        check_containerfile(container, problems)
    else:
        problems.append(f"{rel(container)}: missing")
    units = sorted(glob.glob(os.path.join(deploy, "*.service")))
    if not units:
        problems.append(f"{rel(deploy)}: no systemd unit (*.service)")
    for unit in units:
        check_unit(unit, deploy, problems)
    check_manifests(deploy, problems)
    for p in problems:
        print("check-deploy: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
