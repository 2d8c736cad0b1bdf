"""The suite's own split across processes (``tests/workers.py``): who shares a worker, and that xdist sees it."""

from __future__ import annotations

import os
import subprocess

import pytest

import workers


def test_a_worker_groups_its_tests_as_the_suite_says(request):
    """Under ``--dist loadgroup`` xdist files a test under its group by the ``@group`` suffix of its id.

    pytest 9.2 stopped that suffix from taking (pytest-xdist issue 1386): tests that must not meet were then
    spread over workers without a word. pyproject.toml keeps pytest below 9.2 until xdist follows."""
    if not workers.is_worker() or not request.config.getvalue("loadgroup"):
        pytest.skip("runs only on an xdist worker under --dist loadgroup (scripts/run-tests.sh)")
    assert request.node.nodeid.endswith("@unit/test_workers.py"), request.node.nodeid


def test_xdist_starts_the_groups_in_the_order_the_workers_collected(request):
    """Else xdist starts the groups with the most tests first, and ``workers.in_schedule_order`` is undone."""
    if not workers.is_worker() or not request.config.getvalue("loadgroup"):
        pytest.skip("runs only on an xdist worker under --dist loadgroup (scripts/run-tests.sh)")
    assert request.config.getvalue("loadscopereorder") is False, "scripts/run-tests.sh passes --no-loadscope-reorder"


def test_a_worker_has_its_own_x_server():
    if not workers.is_worker():
        pytest.skip("runs only on an xdist worker")
    if not workers._started:
        pytest.skip("Xvfb or setpriv is not installed: the GUI tests run offscreen")
    assert workers._started[-1].poll() is None
    out = subprocess.run(["xdpyinfo"], capture_output=True, text=True, timeout=20)   # on $DISPLAY
    assert out.returncode == 0 and "1600x1000" in out.stdout, out.stderr
    served = {line.split()[-1] for line in out.stdout.splitlines() if line.startswith("name of display")}
    assert served == {os.environ["DISPLAY"]}


class _Item:
    def __init__(self, path, marks=(), fixtures=()):
        self.fspath = workers.TESTS / path
        self._marks = set(marks)
        self.fixturenames = list(fixtures)

    def get_closest_marker(self, name):
        return name if name in self._marks else None


def test_what_touches_the_host_network_shares_the_system_worker():
    assert workers.group_of(_Item("backends/test_local_lab.py")) == "system"
    assert workers.group_of(_Item("backends/kvm/test_kvm_e2e.py")) == "system"
    assert workers.group_of(_Item("measure/test_measure_runner.py")) == "system"
    assert workers.group_of(_Item("gui/test_verify_gui.py", marks={"lab"})) == "system"
    assert workers.group_of(_Item("gui/test_x.py", fixtures={"sshd"})) == "system"


def test_vcsim_tests_run_beside_the_system_worker_unless_they_start_sshd():
    assert workers.group_of(_Item("backends/vsphere/test_vsphere_deploy.py")) == "vsphere"
    assert workers.group_of(_Item("backends/vsphere/test_vsphere_teaming.py", fixtures={"vcsim"})) == "vsphere"
    assert workers.group_of(_Item("backends/vsphere/test_vsphere_endpoint.py", fixtures={"sshd"})) == "system"


def test_everything_else_goes_a_file_at_a_time():
    assert workers.group_of(_Item("unit/test_predict_matrix.py")) == "unit/test_predict_matrix.py"
    assert workers.group_of(_Item("gui/test_room.py", marks={"xvfb"}, fixtures={"qtbot"})) == "gui/test_room.py"
    assert workers.group_of(_Item("packaging/test_install.py")) == "packaging/test_install.py"


def test_the_longest_groups_start_first_and_each_group_stays_together():
    lab = _Item("backends/test_local_lab.py")
    deb = [_Item("packaging/test_install.py", marks={"slow"}), _Item("packaging/test_install.py")]
    many = [_Item("unit/test_predict_matrix.py") for _ in range(3)]
    few = _Item("unit/test_layout.py")
    kvm = _Item("backends/kvm/test_kvm_e2e.py", marks={"slow"})
    collected = [few, *many, deb[0], lab, deb[1], kvm]
    assert workers.in_schedule_order(collected) == [lab, kvm, *deb, *many, few]
    assert sorted(map(id, workers.in_schedule_order(collected))) == sorted(map(id, collected))
