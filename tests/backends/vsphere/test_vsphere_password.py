"""Without an OS keyring the CLI still logs in: ``VNETBENCH_PASSWORD`` for scripts, a terminal prompt for people."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest
from vnetbench.model import save

from vcsim_tools import cli_args, cli_env
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow


@pytest.fixture
def plan_only(vcsim, tmp_path):
    path = tmp_path / "lab.vnet.yaml"
    save(lab_design(), path)
    return [sys.executable, "-m", "vnetbench", "deploy", str(path), *cli_args(vcsim, tmp_path), "--plan-only"]


def test_vnetbench_password_serves_scripts_without_a_keyring(vcsim, tmp_path, plan_only):
    env = dict(cli_env(vcsim, tmp_path, keyring_password=False), VNETBENCH_PASSWORD=vcsim.password)
    done = subprocess.run(plan_only, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "10 changes on vsphere" in done.stdout and vcsim.password not in done.stdout + done.stderr


def test_without_keyring_or_terminal_it_says_how_to_give_the_password(vcsim, tmp_path, plan_only):
    done = subprocess.run(plan_only, env=cli_env(vcsim, tmp_path, keyring_password=False), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 3
    assert done.stderr.count("\n") == 1 and "VNETBENCH_PASSWORD" in done.stderr and "terminal" in done.stderr


def test_on_a_terminal_without_keyring_it_asks(vcsim, tmp_path, plan_only):
    env = cli_env(vcsim, tmp_path, keyring_password=False)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI, with the pseudo-terminal as its controlling terminal
        os.execve(sys.executable, plan_only, env)
    seen = b""
    deadline = time.monotonic() + 60
    asked = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if not asked and f"Password for {vcsim.user}@{vcsim.hostport}: ".encode() in seen:
            os.write(fd, vcsim.password.encode() + b"\n")
            asked = True
    _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    assert asked, text
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "10 changes on vsphere" in text
    assert vcsim.password not in text, "the typed password is not echoed"


def test_the_password_is_never_a_command_line_option(plan_only):
    done = subprocess.run(plan_only + ["--password", "x"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unrecognized arguments: --password" in done.stderr


def test_a_wrong_password_without_a_keyring_is_not_sent_to_the_keyring(vcsim, tmp_path, plan_only):
    env = dict(cli_env(vcsim, tmp_path, keyring_password=False), VNETBENCH_PASSWORD="not-" + vcsim.password)
    done = subprocess.run(plan_only, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr
    assert "wrong user name or password" in done.stderr and "keyring" not in done.stderr, done.stderr
    assert "VNETBENCH_PASSWORD" in done.stderr


def test_a_wrong_password_in_the_keyring_says_which_entry_to_update(vcsim, tmp_path, plan_only):
    env = dict(cli_env(vcsim, tmp_path), VNB_TEST_KEYRING_PASSWORD="not-" + vcsim.password)
    done = subprocess.run(plan_only, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert f"keyring set vnetbench-vsphere {vcsim.user}@{vcsim.hostport}" in done.stderr, done.stderr
