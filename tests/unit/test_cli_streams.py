"""``-`` on the command line, and writing onto things that are not regular files without destroying them."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading

import pytest

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.fileformat import atomic_write

EXAMPLE = resources_dir() / "examples" / "nsx-dfw.vnet.yaml"
CLI = [sys.executable, "-m", "vnetbench"]


def vnetbench(*args: str, stdin: bytes | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, cwd=cwd, timeout=120)


def test_a_dash_reads_the_design_from_stdin_and_writes_the_export_to_stdout(tmp_path):
    done = vnetbench("export", "-", "-f", "dot", "-o", "-", stdin=EXAMPLE.read_bytes(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"graph ") and done.stdout.rstrip().endswith(b"}")
    assert list(tmp_path.iterdir()) == []           # no file named "-" (or anything else) was written
    shown = vnetbench("show", "-", "--json", stdin=EXAMPLE.read_bytes())
    assert shown.returncode == 0 and load(EXAMPLE).name.encode() in shown.stdout


def test_a_bad_design_on_stdin_is_one_line_naming_stdin():
    done = vnetbench("validate", "-", stdin=b"format_version: 1\nid: [unclosed\n")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("vnetbench validate: <stdin>: line ")
    assert done.stderr.count(b"\n") == 1


def test_writing_onto_a_fifo_writes_into_it_and_keeps_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    atomic_write(fifo, "through the pipe\n")
    reader.join(10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_export_onto_dev_stdout_writes_to_the_pipe():
    done = subprocess.run(f"{sys.executable} -m vnetbench export {EXAMPLE} -f mermaid -o /dev/stdout | cat",
                          shell=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"flowchart" in done.stdout and b"wrote" not in done.stdout    # the report line goes to stderr
    assert b"wrote" in done.stderr


def test_a_rename_never_replaces_a_device_that_appears_meanwhile(tmp_path, monkeypatch):
    """The target turns into a FIFO between the check and the rename: the save refuses, the FIFO stays."""
    from vnetbench.model import fileformat

    target = tmp_path / "target"
    real = fileformat._write_into_special

    def then_a_fifo_appears(path, payload):
        answer = real(path, payload)
        os.mkfifo(target)
        return answer

    monkeypatch.setattr(fileformat, "_write_into_special", then_a_fifo_appears)
    with pytest.raises(FileExistsError):
        atomic_write(target, "data")
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and unshare(1)")
def test_export_onto_a_null_device_keeps_the_device(tmp_path):
    """As root, ``-o /dev/null`` used to rename a regular file over the device. Checked on a null device of
    the test's own, on a tmpfs in a private mount namespace, never on the machine's /dev/null."""
    folder = tmp_path / "dev"
    folder.mkdir()
    script = (f"mount -t tmpfs vnb-test {folder} && mknod {folder}/null c 1 3 && "
              f"{sys.executable} -m vnetbench export {EXAMPLE} -f dot -o {folder}/null && "
              f"{sys.executable} -c \"from vnetbench.model import load, save; "
              f"save(load('{EXAMPLE}'), '{folder}/null')\" && "
              f"stat -c '%F %t:%T' {folder}/null && ls -A {folder}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and "mount" in done.stderr and "permission" in done.stderr.lower():
        pytest.skip(f"no mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    kind, listing = done.stdout.strip().split("\n")[-2:]
    assert kind == "character special file 1:3"
    assert listing.split() == ["null"]            # no temporary file left beside it
