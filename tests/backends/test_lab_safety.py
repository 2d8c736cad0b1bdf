"""The local lab touches only what it made, and no interruption strands it (issue 12, items 2-7b and 20).

The ownership tests attach foreign namespaces under lab-like names, including PID 1's. They run inside a
sandbox of their own (new user, PID, network and mount namespaces), where PID 1 and every process are the
test's: if teardown ever regressed to killing by name, it would kill the sandbox, never the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from lab_designs import campus
from lab_kernel import kernel_lists

from vnetbench.backends import Op
from vnetbench.model import save
from vnetbench_local import LocalLabBackend
from vnetbench.backends.planning import design_tag
from vnetbench_local.names import ns_prefix
from vnetbench_local.state import LabState

pytestmark = pytest.mark.lab
ROOT = Path(__file__).resolve().parents[2]


def _needs_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces on the host's kernel)")


def namespaces_of(change) -> list[str]:
    spec = change.data["spec"]
    return [spec["a"]["ns"], spec["b"]["ns"]] if change.kind == "veth" else [spec["ns"]]


def ours(tag: str, namespaces: set[str]) -> set[str]:
    return {n for n in namespaces if n.startswith(ns_prefix(tag))}


def cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", *args], capture_output=True, text=True,
                          env=env or os.environ, timeout=kw.pop("timeout", 120), **kw)


def _wait(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _saved(folder: Path, vms_per_host: int, hosts: int):
    """A fresh campus design saved in ``folder``: (design, tag, path)."""
    design = campus(vms_per_host=vms_per_host, hosts=hosts)
    path = folder / "d.vnet.yaml"
    save(design, path)
    return design, design_tag(design.id), path


def _shim(folder: Path, script: str) -> dict[str, str]:
    """An environment whose ``ip`` is ``script`` (``$REAL`` is the real one)."""
    real = subprocess.run(["sh", "-c", "command -v ip"], capture_output=True, text=True).stdout.strip()
    folder.mkdir(exist_ok=True)
    (folder / "ip").write_text(f"#!/bin/sh\nREAL={real}\n{script}\n")
    (folder / "ip").chmod(0o755)
    return {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}


# --- items 2 and 3b: a name is not ownership ----------------------------------------------------------------

SANDBOX_SCRIPT = textwrap.dedent("""\
    import json, os, subprocess, sys, time
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from lab_designs import campus
    from vnetbench.model import save
    from vnetbench_local import LocalLabBackend
    from vnetbench.backends.planning import design_tag

    def sh(cmd):
        return subprocess.run(cmd, shell=True, capture_output=True, text=True)

    def sleeper(ns=None):
        argv = ["ip", "netns", "exec", ns, "sleep", "1000"] if ns else ["sleep", "1000"]
        return subprocess.Popen(argv, start_new_session=True)

    out = {{}}
    state = {state!r}
    backend = LocalLabBackend({{"mode": "root", "state_dir": state}})
    design = campus(vms_per_host=1, hosts=1)
    tag = design_tag(design.id)
    save(design, state + "/design.vnet.yaml")
    out["tag"] = tag
    out["first_up"] = [r.ok for r in backend.apply(backend.plan(design))]
    mine = sorted(n for n in os.listdir("/run/netns") if n.startswith(f"vnb{{tag}}-"))
    out["mine"] = mine
    # PID 1 (this sandbox's init) runs in its own network namespace with a sleeper beside it. It is attached
    # under a lab's name, and a forged record claims it, mark and all: only the PID 1 check stands.
    sh("ip netns attach vnb654321-hostalias 1")
    sh("ip -n vnb654321-hostalias link set lo alias vnetbench:654321:forged")
    st = os.stat("/run/netns/vnb654321-hostalias")
    Path(state, "654321.json").write_text(json.dumps({{"mark": "forged", "namespaces": {{
        "vnb654321-hostalias": {{"state": "made", "id": [st.st_dev, st.st_ino]}}}}}}))
    # This process's own namespace, attached under the lab's own tag.
    sh(f"ip netns attach vnb{{tag}}-self {{os.getpid()}}")
    for ns in (f"vnb{{tag}}-foreign", "vnb123456-mine"):
        sh(f"ip netns add {{ns}}")
    procs = {{"pid1-sleeper": {pid1_sleeper}, "foreign": sleeper(f"vnb{{tag}}-foreign").pid,
             "other": sleeper("vnb123456-mine").pid}}
    # One of the lab's own namespaces is deleted and someone else's takes its name.
    replaced = mine[0]
    sh(f"ip netns del {{replaced}}")
    sh(f"ip netns add {{replaced}}")
    procs["replaced"] = sleeper(replaced).pid
    time.sleep(0.3)
    out["replaced"] = replaced
    plan = backend.plan(design)
    out["plan"] = [str(c) for c in plan.changes]
    out["deletes"] = [c.key for c in plan.changes if c.op.value == "delete"]
    out["second_up"] = [[c.key, r.ok, r.error] for c, r in ((r.change, r) for r in backend.apply(plan))]
    env = dict(os.environ, VNETBENCH_LAB_DIR=state)
    down = subprocess.run([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "down", "--all", "--yes"],
                          capture_output=True, text=True, env=env)
    out["down"] = [down.returncode, down.stdout, down.stderr]
    out["alive"] = {{name: os.path.exists(f"/proc/{{pid}}") and
                    open(f"/proc/{{pid}}/stat").read().split(")")[1].split()[0] != "Z" for name, pid in procs.items()}}
    out["left"] = sorted(os.listdir("/run/netns"))
    print("RESULT " + json.dumps(out))
    for pid in procs.values():
        os.kill(pid, 9)
""")


def _in_sandbox(tmp_path: Path) -> dict:
    """Run SANDBOX_SCRIPT as a child of a private PID 1 that lives in its own network namespace."""
    state = tmp_path / "state"
    state.mkdir()
    script = tmp_path / "inside.py"
    script.write_text(SANDBOX_SCRIPT.format(tests=str(Path(__file__).parent), state=str(state),
                                            pid1_sleeper="int(open('/run/pid1-sleeper').read())"))
    # PID 1: a shell with a sleeper in its network namespace; the test's Python runs in a namespace of its own.
    init = (f"mount -t tmpfs tmpfs /run && mkdir -p /run/netns /run/vnetbench && "
            f"ip link set lo up && (sleep 1000 & echo $! > /run/pid1-sleeper) && "
            f"unshare --net {sys.executable} {script}; echo EXIT $?")
    try:
        proc = subprocess.run(["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--net",
                               "--mount", "--propagation", "private", "sh", "-c", init],
                              capture_output=True, text=True, timeout=180,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    except FileNotFoundError:
        pytest.fail("unshare (util-linux) is missing")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines and "Operation not permitted" in proc.stderr and os.environ.get("CI") != "1":
        pytest.skip(f"no unprivileged namespaces here: {proc.stderr.strip()[:200]}")
    assert lines, (proc.stdout[-3000:], proc.stderr[-3000:])
    return json.loads(lines[0][len("RESULT "):])


def test_teardown_and_up_never_touch_namespaces_they_did_not_make(tmp_path):
    out = _in_sandbox(tmp_path)
    tag, mine, replaced = out["tag"], out["mine"], out["replaced"]
    assert out["first_up"] and all(out["first_up"])
    # lab up: nothing foreign is deleted, the replaced namespace blocks only its own part of the lab
    assert not any(k in out["deletes"] for k in (f"netns/vnb{tag}-foreign", "netns/vnb123456-mine",
                                                 "netns/vnb654321-hostalias")), out["plan"]
    blocked = [k for k, ok, err in out["second_up"] if not ok]
    assert f"netns/{replaced}" in blocked and all("left alone" in err or "blocked" in err or "needs" in err
                                                  for k, ok, err in out["second_up"] if not ok), out["second_up"]
    # lab down --all: lists what it will remove and what it leaves, before doing it; stops nothing foreign
    code, stdout, stderr = out["down"]
    assert "Traceback" not in stderr, stderr
    listing, _, outcome = stdout.partition("removed namespaces")
    for ns in set(mine) - {replaced}:
        assert f"will remove  namespace {ns}" in listing, stdout
    foreign = {"vnb654321-hostalias", f"vnb{tag}-self", f"vnb{tag}-foreign", "vnb123456-mine", replaced}
    for ns in foreign:
        assert f"left alone   namespace {ns}" in listing, stdout
    for ns in ("vnb654321-hostalias", f"vnb{tag}-self"):
        assert f"namespace {ns}: it is the host's own network namespace" in listing, stdout
    assert out["alive"] == {"pid1-sleeper": True, "foreign": True, "other": True, "replaced": True}, out["alive"]
    assert set(out["left"]) == foreign
    # what it left alone on purpose is said once, with why, and is no failure (issue 33, item 6)
    assert code == 0 and f"{len(foreign)} left alone, as listed above" in outcome, stdout
    assert "failed" not in outcome and stdout.count(f"vnb{tag}-foreign:") == 1, stdout


def test_lab_down_beside_a_look_alike_namespace_leaves_it_alone_and_succeeds(tmp_path):
    """``vnb<tag>-foreign`` is named like the lab but is not the lab's: ``lab down`` reports it once as left
    alone, with why, exits 0, and does so again on every run (a script's teardown step must not fail
    forever on a namespace that is not vnetbench's)."""
    _needs_root()
    design, tag, path = _saved(tmp_path, 1, 1)
    env = {**os.environ, "VNETBENCH_LAB_DIR": str(tmp_path / "state")}
    foreign = f"vnb{tag}-foreign"
    try:
        up = cli("lab", "--mode", "root", "up", str(path), "--yes", env=env)
        assert up.returncode == 0, up.stdout + up.stderr
        subprocess.run(["ip", "netns", "add", foreign], check=True)
        for _ in range(2):
            down = cli("lab", "--mode", "root", "down", str(path), "--yes", env=env)
            assert down.returncode == 0 and "Traceback" not in down.stderr, down.stdout + down.stderr
            assert down.stdout.count(foreign) == 1 and f"left alone   namespace {foreign}: " in down.stdout
            assert "1 left alone, as listed above" in down.stdout and "failed" not in down.stdout, down.stdout
            assert foreign in kernel_lists()[0]
            assert not [ns for ns in kernel_lists()[0] if ns.startswith(f"vnb{tag}-") and ns != foreign]
        listed = cli("lab", "--mode", "root", "down", str(path), "--yes", "--json", env=env)
        assert listed.returncode == 0, listed.stdout + listed.stderr
        (entry,) = json.loads(listed.stdout)
        assert entry["left_alone"] and not entry["ok"] and foreign in entry["key"]
    finally:
        subprocess.run(["ip", "netns", "del", foreign])
        cli("lab", "--mode", "root", "down", str(path), "--yes", env=env)


# --- item 4: a half-recorded deploy converges ------------------------------------------------------------------


def test_a_deploy_killed_before_any_namespace_exists_converges(tmp_path):
    _needs_root()
    design, tag, path = _saved(tmp_path, 1, 2)
    state_dir = tmp_path / "state"
    env = _shim(tmp_path / "shim", 'case " $* " in *" netns add "*|*" -batch "*) '
                                   'case " $* " in *" -n "*) ;; *) sleep 30;; esac;; esac\nexec $REAL "$@"')
    env["VNETBENCH_LAB_DIR"] = str(state_dir)
    proc = subprocess.Popen([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "up", str(path), "--yes"],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state_file = state_dir / f"{tag}.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (state_file.exists() and LabState.load(state_file).inflight):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert LabState.load(state_file).inflight and not ours(tag, kernel_lists()[0]), "killed too late"
    run_env = {**os.environ, "VNETBENCH_LAB_DIR": str(state_dir)}
    try:
        up = cli("lab", "--mode", "root", "up", str(path), "--yes", env=run_env)
        assert up.returncode == 0, (up.stdout, up.stderr)
        assert "nothing to change" in cli("lab", "--mode", "root", "up", str(path), env=run_env).stdout
    finally:
        down = cli("lab", "--mode", "root", "down", str(path), env=run_env)
    assert down.returncode == 0 and not ours(tag, kernel_lists()[0]), down.stdout


# --- item 5: a batch that stops early is a failure, checked against the kernel -----------------------------------


def test_a_batch_that_exits_early_counts_as_failed_and_the_next_up_converges(tmp_path, monkeypatch):
    _needs_root()
    design = campus(vms_per_host=1, hosts=1)
    tag = design_tag(design.id)
    backend = LocalLabBackend({"mode": "root", "state_dir": str(tmp_path / "state")})
    # An `ip` that, like `ip -force -batch` meeting a bad argument, stops at its first line with status 255
    # and prints no "Command failed" line; the lines after it never run.
    env = _shim(tmp_path / "shim", 'case " $* " in *" -batch "*) case " $* " in *" -n "*) ;; *) '
                                   'head -n1 | $REAL -batch - ; echo "Error: argument is wrong" >&2; exit 255;; '
                                   'esac;; esac\nexec $REAL "$@"')
    monkeypatch.setenv("PATH", env["PATH"])
    try:
        results = backend.apply(backend.plan(design))
        made = ours(tag, kernel_lists()[0])
        assert len(made) == 1                                   # the first line ran, the rest never did
        netns = [r for r in results if r.change.kind == "netns"]
        assert len(netns) == 4 and sum(not r.ok for r in netns) >= 3, [(r.change.key, r.ok) for r in netns]
        assert not [r.change.key for r in results if r.ok and not {*namespaces_of(r.change)} <= made], \
            "a change counted as applied lives in a namespace that is not there"
        monkeypatch.setenv("PATH", os.environ["PATH"].split(":", 1)[1])
        again = backend.apply(backend.plan(design))
        assert all(r.ok for r in again), [r.error for r in again if not r.ok]
        assert backend.plan(design).empty
    finally:
        monkeypatch.undo()
        backend.teardown(design.id)
    assert not ours(tag, kernel_lists()[0])


# --- item 6: Ctrl-C during lab up -------------------------------------------------------------------------------


def test_ctrl_c_during_up_reports_what_was_applied_exits_130_and_the_next_up_converges(tmp_path):
    _needs_root()
    before = kernel_lists()
    design, tag, path = _saved(tmp_path, 2, 2)
    state_dir = tmp_path / "state"
    env = _shim(tmp_path / "shim", 'case " $* " in *" -n "*" -batch "*) sleep 1.5;; esac\nexec $REAL "$@"')
    env["VNETBENCH_LAB_DIR"] = str(state_dir)
    proc = subprocess.Popen([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "up", str(path), "--yes"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not ours(tag, kernel_lists()[0]):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    run_env = {**os.environ, "VNETBENCH_LAB_DIR": str(state_dir)}
    try:
        assert proc.returncode == 130, (proc.returncode, stdout, stderr)
        assert "Traceback" not in stderr and "KeyError" not in stderr, stderr
        assert "interrupted" in stdout and "not applied" in stdout, stdout
        up = cli("lab", "--mode", "root", "up", str(path), "--yes", env=run_env)
        assert up.returncode == 0, (up.stdout, up.stderr)
        assert cli("lab", "--mode", "root", "plan", str(path), "--json", env=run_env).stdout.count('"key"') == 0
    finally:
        down = cli("lab", "--mode", "root", "down", str(path), env=run_env)
    assert down.returncode == 0, down.stdout
    after = kernel_lists()
    assert not ours(tag, after[0]) and after[1] == before[1]


# --- item 7b: the same design brought up twice at once -------------------------------------------------------------


def test_two_ups_of_one_design_at_once_never_break_and_say_so(tmp_path):
    _needs_root()
    design, tag, path = _saved(tmp_path, 2, 2)
    env = {**os.environ, "VNETBENCH_LAB_DIR": str(tmp_path / "state")}
    argv = [sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "up", str(path), "--yes"]
    try:
        for _ in range(5):
            procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for _ in range(2)]
            outs = [(p.wait(120), *p.communicate()) for p in procs]
            for code, out, err in outs:
                assert "Traceback" not in err and "FileNotFoundError" not in err, err
                assert code == 0 or (code == 3 and ("another `lab up`" in err or "changed since this plan" in err)), \
                    (code, out, err)
            assert any(code == 0 for code, _, _ in outs)
            assert "nothing to change" in cli("lab", "--mode", "root", "up", str(path), env=env).stdout
            assert cli("lab", "--mode", "root", "down", str(path), env=env).returncode == 0
    finally:
        cli("lab", "--mode", "root", "down", str(path), env=env)
    assert not ours(tag, kernel_lists()[0])


# --- item 20: rootless with HOME=/nonexistent (as `su nobody` gives) -------------------------------------------------


def test_rootless_up_and_down_as_nobody_without_a_home():
    _needs_root()
    design = campus(vms_per_host=1, hosts=1)
    folder = Path(tempfile.mkdtemp(prefix="vnb-nobody-"))
    os.chmod(folder, 0o755)
    path = folder / "d.vnet.yaml"
    save(design, path)
    os.chmod(path, 0o644)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "VNETBENCH_LAB_DIR",
                                                            "VNETBENCH_DATA_DIR", "XDG_DATA_HOME")}
    env["HOME"] = "/nonexistent"
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m", "vnetbench"]
    up = subprocess.run([*nobody, "lab", "up", str(path), "--yes"], capture_output=True, text=True, env=env,
                        timeout=120)
    down = subprocess.run([*nobody, "lab", "down", str(path)], capture_output=True, text=True, env=env, timeout=60)
    shutil.rmtree(folder, ignore_errors=True)
    assert "Traceback" not in up.stderr + down.stderr, up.stderr + down.stderr
    assert up.returncode == 0, (up.stdout, up.stderr)
    assert down.returncode == 0, (down.stdout, down.stderr)


def test_a_plan_blocked_by_a_foreign_namespace_names_it(lab, tmp_path):
    """A namespace with the lab's exact name that the lab did not make blocks only its own change."""
    design = campus(vms_per_host=1, hosts=1)
    tag = design_tag(design.id)
    foreign = f"vnb{tag}-v-h0v0"
    subprocess.run(["ip", "netns", "add", foreign], check=True)
    try:
        plan = lab.plan(design)
        blocked = [c for c in plan.changes if "blocked" in c.data]
        assert [c.key for c in blocked if c.kind == "netns"] == [f"netns/{foreign}"]
        assert all(c.op is not Op.DELETE for c in plan.changes)
        results = lab.apply(plan)
        assert {r.change.key for r in results if not r.ok} == {c.key for c in blocked}
        assert foreign in kernel_lists()[0]
        lab.deployed.append(design.id)
    finally:
        subprocess.run(["ip", "netns", "del", foreign])


def test_a_second_signal_stops_a_hanging_up_at_once(tmp_path):
    _needs_root()
    design, tag, path = _saved(tmp_path, 1, 1)
    hanging = tmp_path / "hanging"
    env = _shim(tmp_path / "shim", f'case " $* " in *" -n "*" -batch "*) touch {hanging}; sleep 60;; esac\n'
                                   'exec $REAL "$@"')
    env["VNETBENCH_LAB_DIR"] = str(tmp_path / "state")
    proc = subprocess.Popen([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "up", str(path), "--yes"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert _wait(hanging.exists), "the deploy never reached its hanging stage"
        proc.send_signal(signal.SIGTERM)
        time.sleep(1.0)
        assert proc.poll() is None                      # the first waits for the running stage
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in proc.stderr.read()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)         # and the hanging `ip` it left behind
        except ProcessLookupError:
            pass
        cli("lab", "--mode", "root", "down", str(path), env={**os.environ, "VNETBENCH_LAB_DIR": str(tmp_path / "state")})
    assert not ours(tag, kernel_lists()[0])
