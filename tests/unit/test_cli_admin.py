"""What an admin relies on around the commands: log levels and the log file, the plugin list, JSON output
everywhere, the schema, and per-user folders each in its place."""

from __future__ import annotations

import importlib
import json
import logging
import re
import sys
from pathlib import Path

import pytest
from test_measure_store import a_run

from vnetbench import dirs, logs
from vnetbench.backends.discovery import PluginInfo
from vnetbench.cli.main import main
from vnetbench.measure import RunStore
from vnetbench.model import Topology
from vnetbench.model.schema import SCHEMA_ID, json_schema

EXAMPLE = Path(__file__).parents[2] / "resources" / "examples" / "nsx-dfw.vnet.yaml"


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(folder))
    yield folder
    logging.getLogger("vnetbench").handlers.clear()   # the next test sets up its own


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_debug_prints_and_logs_everything_quiet_prints_nothing_more(data, capsys):
    code, _, err = cli(capsys, "--debug", "validate", str(EXAMPLE))
    assert code == 0 and "DEBUG: vnetbench" in err and " validate" in err
    log = dirs.log_file()
    assert log == data / "vnetbench.log" and "DEBUG vnetbench.cli: vnetbench" in log.read_text()
    code, _, err = cli(capsys, "--quiet", "validate", str(EXAMPLE))
    assert code == 0 and err == ""
    logging.getLogger("vnetbench.test").warning("a warning")
    assert "a warning" not in capsys.readouterr().err      # --quiet: errors only on the console
    assert "WARNING vnetbench.test: a warning" in log.read_text()


def test_verbose_and_quiet_cannot_be_given_together(data, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--quiet", "--verbose", "validate", str(EXAMPLE)])
    assert stop.value.code == 2


def test_backends_lists_versions_capabilities_and_load_errors(data, capsys, monkeypatch):
    from vnetbench.cli.commands import backends

    real = backends.discover()
    broken = PluginInfo("broken", exception=ImportError("No module named 'vnetbench_broken'"),
                        distribution="vnetbench-broken")
    monkeypatch.setattr(backends, "discover", lambda: [*real, broken])
    code, out, _ = cli(capsys, "backends", "--json")
    listed = {p["name"]: p for p in json.loads(out)}
    assert code == 0 and listed["local"]["ok"] and listed["local"]["version"]
    assert "vss" in listed["local"]["capabilities"]["switch_kinds"]
    assert listed["local"]["capabilities"]["measure"] is True
    assert listed["broken"] == {"name": "broken", "distribution": "vnetbench-broken", "version": None, "ok": False,
                                "capabilities": None, "error": "ImportError: No module named 'vnetbench_broken'"}
    code, out, _ = cli(capsys, "backends")
    assert "local (vnetbench " in out and "broken (vnetbench-broken): failed to load: ImportError" in out


def test_schema_prints_the_shipped_schema_with_its_id(capsys):
    code, out, _ = cli(capsys, "schema")
    assert code == 0 and json.loads(out) == json_schema()
    assert json.loads(out)["$id"] == SCHEMA_ID == "https://vnetbench.io/schema/topology-1.json"


def test_runs_list_is_the_listing_and_import_and_calibrate_speak_json(data, capsys, tmp_path):
    store = RunStore()
    first = store.add(a_run())
    assert cli(capsys, "runs", "list")[0] == 0
    code, out, _ = cli(capsys, "runs", "list", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [first]
    exported = tmp_path / "run.json"
    store.export(first, exported, "json")
    code, out, _ = cli(capsys, "runs", "import", str(exported), "--json")
    imported = json.loads(out)
    assert code == 0 and imported["file"] == str(exported) and imported["id"] != first
    code, out, _ = cli(capsys, "runs", "calibrate", str(first), "--name", "mine", "--json")
    written = json.loads(out)
    assert code == 0 and written["runs"] == [first] and Path(written["profile"]).is_file()


def test_import_speaks_json(data, capsys, tmp_path, monkeypatch):
    module = importlib.import_module("vnetbench.cli.commands.import")

    class Inventory:
        def import_design(self, progress):
            return Topology(id="imported", name="vcenter")

        def close(self):
            pass

    monkeypatch.setattr(module, "open_backend", lambda args: Inventory())
    out_file = tmp_path / "imported.vnet.yaml"
    code, out, _ = cli(capsys, "import", "--backend", "vsphere", "-o", str(out_file), "--json")
    assert code == 0 and json.loads(out) == {"path": str(out_file), "name": "vcenter", "hosts": 0, "switches": 0,
                                             "vms": 0}
    assert out_file.read_text().startswith("# yaml-language-server: $schema=")


def test_folders_follow_the_platform_and_the_override(tmp_path, monkeypatch):
    monkeypatch.delenv("VNETBENCH_DATA_DIR", raising=False)
    if sys.platform.startswith("linux"):
        for var, name in (("XDG_CONFIG_HOME", "c"), ("XDG_DATA_HOME", "d"), ("XDG_STATE_HOME", "s"),
                          ("XDG_CACHE_HOME", "k")):
            monkeypatch.setenv(var, str(tmp_path / name))
        assert (dirs.config_dir(), dirs.data_dir(), dirs.state_dir(), dirs.cache_dir()) == tuple(
            tmp_path / name / "vnetbench" for name in "cdsk")
        assert dirs.log_file() == tmp_path / "s" / "vnetbench" / "vnetbench.log"
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "one"))
    assert {dirs.config_dir(), dirs.data_dir(), dirs.state_dir()} == {tmp_path / "one"}
    cache = tmp_path / "k" / "vnetbench" if sys.platform.startswith("linux") else dirs.cache_dir()
    assert dirs.cache_dir() == cache, "the cache (a rebuildable guest image) stays shared"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the local lab is Linux only")
def test_the_rootless_ledger_is_state_not_cache_and_an_old_one_is_still_found(tmp_path, monkeypatch):
    context = pytest.importorskip("vnetbench_local.context")
    if context.os.geteuid() == 0:
        monkeypatch.setattr(context.os, "geteuid", lambda: 1000)
    for var in ("VNETBENCH_LAB_DIR", "VNETBENCH_DATA_DIR", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "home").mkdir()
    assert context.default_state_dir() == tmp_path / "state" / "vnetbench" / "lab"
    legacy = tmp_path / "home" / ".cache" / "vnetbench" / "lab"
    legacy.mkdir(parents=True)
    assert context.default_state_dir() == tmp_path / "state" / "vnetbench" / "lab"   # empty: not in use
    (legacy / "lab-1234.json").write_text("{}")                                       # a lab deployed before
    assert context.default_state_dir() == legacy


def test_an_uncaught_exception_in_the_designer_lands_in_the_log(data, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", lambda *exc: None)
    logs.setup(logging.CRITICAL + 1)
    logs.install_crash_handlers()
    try:
        raise RuntimeError("a slot broke")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())
    text = dirs.log_file().read_text()
    assert "CRITICAL vnetbench.crash: unhandled RuntimeError: a slot broke" in text
    assert 'raise RuntimeError("a slot broke")' in text     # with its traceback
    assert dirs.crash_file().is_file()


def test_the_readme_documents_every_environment_variable_the_code_reads():
    root = Path(__file__).parents[2]
    used = set()
    for folder in ("app", "plugins", "scripts", "tests"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".py", ".sh") and path.is_file():
                used |= set(re.findall(r"VNETBENCH_[A-Z0-9_]*[A-Z0-9]", path.read_text(errors="replace")))
    readme = (root / "README.md").read_text()
    assert used and sorted(v for v in used if f"`{v}`" not in readme) == []


def test_a_design_saved_as_plain_yaml_is_read_by_its_format_version(data, capsys, tmp_path):
    from vnetbench.model import load, save

    path = tmp_path / "my design.yaml"
    save(load(EXAMPLE), path)
    assert path.read_text().startswith("# yaml-language-server: $schema=")
    code, out, _ = cli(capsys, "validate", str(path))
    assert code == 0 and "no problems" in out
