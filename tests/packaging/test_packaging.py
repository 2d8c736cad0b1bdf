"""The installers' parts: desktop entry, MIME type, AppStream metadata, icon, PyInstaller spec, install-desktop.sh,
the extras map, the lock file, the completions, the man page and the notice generator.

No PyInstaller build here (minutes): the spec is executed against recording stand-ins for PyInstaller's build
classes. test_install.py builds and installs for real.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.model import fileformat

ROOT = Path(__file__).resolve().parents[2]
DESKTOP_DIR = ROOT / "resources" / "desktop"
APP_ID = "io.vnetbench.Vnetbench"
DESKTOP_FILE = DESKTOP_DIR / f"{APP_ID}.desktop"
MIME_FILE = DESKTOP_DIR / f"{APP_ID}.xml"
METAINFO_FILE = DESKTOP_DIR / f"{APP_ID}.metainfo.xml"
ICON_FILE = DESKTOP_DIR / "vnetbench.svg"
SPEC_FILE = ROOT / "packaging" / "pyinstaller" / "vnetbench.spec"
RUNTIME_HOOK = SPEC_FILE.parent / "rthook_subprocess_env.py"
INSTALL_SCRIPT = ROOT / "packaging" / "install-desktop.sh"
MIME_TYPE = "application/x-vnetbench-design"
SMI = "{http://www.freedesktop.org/standards/shared-mime-info}"
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def desktop_entry() -> dict[str, str]:
    lines = DESKTOP_FILE.read_text().splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line and not line.startswith("#"))


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    return path


# --- desktop entry and AppStream metadata ------------------------------------------------------------------

def test_desktop_file_passes_desktop_file_validate():
    proc = subprocess.run([need("desktop-file-validate"), str(DESKTOP_FILE)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_desktop_file_starts_the_gui_launcher_with_the_design_type_and_icon():
    entry = desktop_entry()
    gui_scripts = pyproject()["project"]["gui-scripts"]
    assert entry["Exec"] == "vnetbench-gui %f"
    assert gui_scripts["vnetbench-gui"] == "vnetbench.cli.main:gui_main"
    assert MIME_TYPE in entry["MimeType"].split(";")
    assert entry["Icon"] == ICON_FILE.stem


def test_metainfo_passes_appstream_validation():
    proc = subprocess.run([need("appstreamcli"), "validate", "--no-net", str(METAINFO_FILE)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_metainfo_names_the_desktop_file_the_type_and_the_version():
    root = ET.parse(METAINFO_FILE).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP_FILE.name
    assert root.find("launchable").get("type") == "desktop-id"
    assert root.findtext("provides/mediatype") == MIME_TYPE
    assert root.find("releases/release").get("version") == pyproject()["project"]["version"]


# --- MIME type ---------------------------------------------------------------------------------------------

def mime_type_element() -> ET.Element:
    root = ET.parse(MIME_FILE).getroot()
    assert root.tag == f"{SMI}mime-info"
    types_ = root.findall(f"{SMI}mime-type")
    assert [t.get("type") for t in types_] == [MIME_TYPE]
    return types_[0]


def magic_matches(element: ET.Element, data: bytes) -> bool:
    """shared-mime-info's string match, for the "start:end" offset ranges the file uses."""
    for match in element.iter(f"{SMI}match"):
        assert match.get("type") == "string"
        start, _, end = match.get("offset").partition(":")
        window = data[int(start): int(end or start) + len(match.get("value"))]
        if match.get("value").encode() in window:
            return True
    return False


def test_mime_globs_are_the_design_suffixes():
    globs = {g.get("pattern") for g in mime_type_element().findall(f"{SMI}glob")}
    assert globs == {"*.vnet.yaml", "*.vnet.json"}
    assert EXAMPLES, "resources/examples holds no designs"
    for example in EXAMPLES:
        assert any(fnmatch.fnmatch(example.name, g) for g in globs), example.name
    for other in ("report.yaml", "design.vnet.yml.bak", "vnet.json"):
        assert not any(fnmatch.fnmatch(other, g) for g in globs), other


def test_mime_magic_recognises_saved_designs_and_nothing_else():
    element = mime_type_element()
    for example in EXAMPLES:
        design = fileformat.load(example)
        for fmt in ("yaml", "json"):
            saved = fileformat.dumps(design, fmt).encode()
            assert magic_matches(element, saved), f"{example.name} saved as {fmt}"
        assert magic_matches(element, example.read_bytes()), example.name
    assert not magic_matches(element, b"name: not a design\nhosts: []\n")
    assert not magic_matches(element, b'{"name": "a package.json", "version": "1.0"}')


def test_update_mime_database_maps_the_suffixes_to_the_type(tmp_path):
    update = need("update-mime-database")
    (tmp_path / "packages").mkdir()
    shutil.copy(MIME_FILE, tmp_path / "packages")
    subprocess.run([update, str(tmp_path)], check=True, capture_output=True)
    globs2 = (tmp_path / "globs2").read_text()
    assert f"{MIME_TYPE}:*.vnet.yaml" in globs2
    assert f"{MIME_TYPE}:*.vnet.json" in globs2


# --- icon --------------------------------------------------------------------------------------------------

def test_icon_is_a_square_svg_that_qt_renders():
    root = ET.parse(ICON_FILE).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    x, y, width, height = (float(v) for v in root.get("viewBox").split())
    assert (x, y) == (0, 0) and width == height > 0
    QtSvg = pytest.importorskip("PySide6.QtSvg")
    renderer = QtSvg.QSvgRenderer(str(ICON_FILE))
    assert renderer.isValid()
    assert renderer.defaultSize().width() == renderer.defaultSize().height() == int(width)


# --- PyInstaller spec --------------------------------------------------------------------------------------

class Recorder:
    """Stands in for one of PyInstaller's build classes and remembers how the spec called it."""

    def __init__(self, calls: list, kind: str):
        self.calls, self.kind = calls, kind

    def __call__(self, *args, **kwargs):
        # an analysis's scripts as PyInstaller lists them: the runtime hooks, then the scripts, by name
        scripts = [(Path(path).stem, path, "PYSOURCE") for path in
                   [*kwargs.get("runtime_hooks", []), *args[0]]] if self.kind == "Analysis" else []
        call = types.SimpleNamespace(kind=self.kind, args=args, kwargs=kwargs, pure=[], scripts=scripts,
                                     binaries=[], datas=kwargs.get("datas", []))
        self.calls.append(call)
        return call


def run_spec(monkeypatch) -> list:
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.copy_metadata = lambda name: [(f"/site-packages/{name}-0.1.0.dist-info", f"{name}-0.1.0.dist-info")]
    hooks.collect_submodules = lambda package: [package]
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    calls: list = []
    namespace = {"SPECPATH": str(SPEC_FILE.parent), "__file__": str(SPEC_FILE)}
    namespace.update({kind: Recorder(calls, kind) for kind in ("Analysis", "PYZ", "EXE", "COLLECT")})
    exec(compile(SPEC_FILE.read_text(), str(SPEC_FILE), "exec"), namespace)
    return calls


def test_spec_compiles_and_every_path_it_names_exists(monkeypatch):
    calls = run_spec(monkeypatch)
    analyses = [c for c in calls if c.kind == "Analysis"]
    assert len(analyses) == 1, "one analysis of both scripts serves both launchers"
    assert sorted(Path(script).name for script in analyses[0].args[0]) == ["vnetbench_cli.py", "vnetbench_gui.py"]
    for analysis in analyses:
        for script in analysis.args[0]:
            assert Path(script).is_file(), script
        for folder in analysis.kwargs["pathex"]:
            assert Path(folder).is_dir(), folder
        for source, _dest in analysis.kwargs["datas"]:
            if not source.startswith("/site-packages/"):
                assert Path(source).exists(), source
        assert [Path(hook).name for hook in analysis.kwargs["runtime_hooks"]] == [RUNTIME_HOOK.name]
    hook = RUNTIME_HOOK.stem
    launchers = {c.kwargs["name"]: [name for name, _path, _kind in c.args[1]] for c in calls if c.kind == "EXE"}
    assert launchers == {"vnetbench-gui": [hook, "vnetbench_gui"], "vnetbench": [hook, "vnetbench_cli"]}, \
        "each launcher runs the runtime hook, then its own script only"
    assert [c.kwargs["name"] for c in calls if c.kind == "COLLECT"] == ["vnetbench"]


def test_spec_bundles_all_resources_the_metadata_and_the_plugins(monkeypatch):
    analysis = next(c for c in run_spec(monkeypatch) if c.kind == "Analysis")
    datas = dict(analysis.kwargs["datas"])
    bundled = {Path(source).name for source in datas if source.startswith(str(ROOT / "resources"))}
    documentation_only = {"screenshots"}  # the README's pictures; nothing reads them at run time
    assert bundled == {p.name for p in (ROOT / "resources").iterdir() if p.is_dir()} - documentation_only
    for source, dest in datas.items():
        if source.startswith(str(ROOT / "resources")):
            assert dest == f"vnetbench/resources/{Path(source).name}"
    assert "vnetbench-0.1.0.dist-info" in datas.values(), "entry points need vnetbench's metadata"
    plugins = {value.split(":")[0] for value in pyproject()["project"]["entry-points"]["vnetbench.backends"].values()}
    assert plugins <= set(analysis.kwargs["hiddenimports"])
    assert "vnetbench" in analysis.kwargs["hiddenimports"]
    manifests = {dest for source, dest in datas.items() if source.endswith("vnetbench-plugin.toml")}
    assert manifests == plugins, "each plugin's manifest sits in its package folder"


@pytest.mark.parametrize("script, table, name", [("vnetbench_gui.py", "gui-scripts", "vnetbench-gui"),
                                                 ("vnetbench_cli.py", "scripts", "vnetbench")])
def test_entry_scripts_call_the_pyproject_entry_points(script, table, name):
    module, func = pyproject()["project"][table][name].split(":")
    tree = ast.parse((SPEC_FILE.parent / script).read_text())
    imports = [(n.module, a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names]
    assert (module, func) in imports
    # the designer's worker processes are spawned from the frozen program itself: PyInstaller runs them only
    # where the entry script calls freeze_support before anything else
    calls = [ast.unparse(n.value.func) for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    assert calls[:1] == ["multiprocessing.freeze_support"]


def test_installed_layout_finds_the_resources_in_the_package(tmp_path):
    """Outside a checkout (a wheel, a PyInstaller bundle) resources_dir() is the package's own resources/."""
    site = tmp_path / "site-packages"
    (site / "vnetbench" / "resources" / "icons").mkdir(parents=True)
    shutil.copy(ROOT / "app" / "vnetbench" / "__init__.py", site / "vnetbench" / "__init__.py")
    code = "import sys; sys.path.insert(0, sys.argv[1]); import vnetbench; print(vnetbench.resources_dir())"
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(site)], capture_output=True, text=True, check=True)
    assert Path(proc.stdout.strip()) == site / "vnetbench" / "resources"


@pytest.mark.parametrize("caller, child", [({"LD_LIBRARY_PATH_ORIG": "/opt/mine"}, "/opt/mine"), ({}, "<unset>")])
def test_runtime_hook_gives_child_processes_the_callers_library_path(caller, child):
    """As the bootloader leaves it: the bundle on LD_LIBRARY_PATH, the caller's value (if any) in ..._ORIG."""
    env = {"PATH": os.environ["PATH"], "LD_LIBRARY_PATH": "/bundle/_internal", **caller}
    code = ("import runpy, subprocess, sys; runpy.run_path(sys.argv[1]); "
            "subprocess.run(['sh', '-c', 'echo ${LD_LIBRARY_PATH-<unset>} ${LD_LIBRARY_PATH_ORIG-<unset>}'])")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(RUNTIME_HOOK)], env=env, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.split() == [child, "<unset>"]


# --- install-desktop.sh ------------------------------------------------------------------------------------

def fake_launcher(folder: Path, name: str, says: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f'#!/bin/sh\necho "{says} $*"\n')
    path.chmod(0o755)
    return path


def test_install_desktop_installs_for_the_user_and_uninstalls_cleanly(tmp_path):
    data = tmp_path / "data home"
    launcher = fake_launcher(tmp_path / "opt" / "vnetbench", "vnetbench-gui", "gui")
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    subprocess.run(["bash", str(INSTALL_SCRIPT), "--exec", str(launcher)], env=env, check=True,
                   capture_output=True)
    installed = [data / "applications" / DESKTOP_FILE.name, data / "mime" / "packages" / MIME_FILE.name,
                 data / "icons" / "hicolor" / "scalable" / "apps" / ICON_FILE.name,
                 data / "metainfo" / METAINFO_FILE.name]
    for path in installed:
        assert path.is_file(), path
    desktop = installed[0].read_text()
    assert f'Exec="{launcher}" %f' in desktop
    assert f"TryExec={launcher}" in desktop
    if shutil.which("desktop-file-validate"):
        subprocess.run(["desktop-file-validate", str(installed[0])], check=True)
    if shutil.which("update-mime-database"):
        assert f"{MIME_TYPE}:*.vnet.yaml" in (data / "mime" / "globs2").read_text()
    if shutil.which("update-desktop-database"):
        assert f"{MIME_TYPE}={DESKTOP_FILE.name};" in (data / "applications" / "mimeinfo.cache").read_text()

    subprocess.run(["bash", str(INSTALL_SCRIPT), "--uninstall"], env=env, check=True, capture_output=True)
    for path in installed:
        assert not path.exists(), path
    leftovers = [p for p in data.rglob("*") if p.is_file() and "vnetbench" in p.read_text(errors="replace")]
    assert leftovers == []


def test_install_desktop_refuses_a_launcher_that_is_not_there(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.run(["bash", str(INSTALL_SCRIPT), "--exec", str(tmp_path / "nope")], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--exec" in proc.stderr and "vnetbench-gui" in proc.stderr
    assert not (tmp_path / "applications").exists()


# --- extras: one map, matching the imports ----------------------------------------------------------------

def imported_top_level_modules(folder: Path) -> set[str]:
    names = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.partition(".")[0])
    return names


def test_every_third_party_import_is_a_core_dependency_or_in_the_extras_map():
    """An import of anything outside the core dependencies must be in vnetbench.extras.OPTIONAL (so a missing
    one is a one-line hint), and every module there must really be imported."""
    from importlib.metadata import packages_distributions

    from packaging.requirements import Requirement
    from vnetbench.extras import OPTIONAL

    def norm(name: str) -> str:
        return name.lower().replace("_", "-").replace(".", "-")

    core = {norm(Requirement(r).name) for r in pyproject()["project"]["dependencies"]}
    owners = packages_distributions()
    ours = {"vnetbench", "vnetbench_local", "vnetbench_vsphere", "vnetbench_kvm"}
    imported = imported_top_level_modules(ROOT / "app") | imported_top_level_modules(ROOT / "plugins")
    third_party = imported - set(sys.stdlib_module_names) - ours - {"__future__"}
    optional = {m for m in third_party if not {norm(d) for d in owners.get(m, [])} & core}
    assert optional == set(OPTIONAL), "add the module to vnetbench.extras.OPTIONAL (or remove a stale one)"


def test_the_extras_map_names_extras_that_install_the_distribution():
    from vnetbench.extras import OPTIONAL

    extras = pyproject()["project"]["optional-dependencies"]
    for module, (dist, names) in OPTIONAL.items():
        for extra in names:
            assert any(r.lower().startswith(dist.lower()) for r in extras[extra]), f"{module}: [{extra}] lacks {dist}"
    assert "local" not in extras and not any("pyroute2" in r for rs in extras.values() for r in rs)


def test_install_hint_is_one_line_naming_the_command():
    from vnetbench.extras import install_hint

    assert install_hint("PySide6.QtSvg") == "PySide6-Essentials is not installed: pip install 'vnetbench[gui]'"
    assert install_hint("PySide6", "export").endswith("pip install 'vnetbench[export]'")
    assert install_hint("pyVmomi.vim") == "pyvmomi is not installed: pip install 'vnetbench[vsphere]'"
    assert install_hint("json") is None


# --- the lock file -----------------------------------------------------------------------------------------

def test_constraints_pin_every_declared_dependency_within_its_range():
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (ROOT / "packaging" / "constraints.txt").read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name.strip())] = version.strip()
    project = pyproject()["project"]
    declared = project["dependencies"] + [r for rs in project["optional-dependencies"].values() for r in rs]
    declared += [line for line in (ROOT / "packaging" / "tools.in").read_text().splitlines()
                 if line and not line.startswith("#")]
    for text in declared:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"python_version": "3.11"}):
            continue
        name = canonicalize_name(requirement.name)   # PEP 503: ruamel.yaml is locked as ruamel-yaml
        assert name in pins, f"{name} is not locked: run bash packaging/lock.sh"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"{name}=={pins[name]} is outside {requirement.specifier}: run bash packaging/lock.sh"


def test_setup_installs_with_the_constraints():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert setup.count("-c packaging/constraints.txt") >= 2
    assert "libvirt-dev" in setup.split("KVM_APT=(")[1].split(")")[0]


# --- completions, man page, notices ------------------------------------------------------------------------

def vnetbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", *args], capture_output=True, text=True, check=True)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_parses_and_knows_every_command(shell, tmp_path):
    from vnetbench.cli.commands import SUMMARIES

    script = tmp_path / f"vnetbench.{shell}"
    script.write_text(vnetbench("completion", shell).stdout)
    for command in SUMMARIES:
        assert command in script.read_text(), command
    assert ("-l from" if shell == "fish" else "--from") in script.read_text(), "the commands' options too"
    subprocess.run([need(shell), "-n", str(script)], check=True)


def test_bash_completion_completes_commands_and_options(tmp_path):
    script = tmp_path / "vnetbench.bash"
    script.write_text(vnetbench("completion", "bash").stdout)
    probe = ('source "$0"; COMP_WORDS=(vnetbench $1); COMP_CWORD=$(($# - 1)); COMP_LINE="vnetbench $1"; '
             'COMP_POINT=${#COMP_LINE}; _shtab_vnetbench; echo "${COMPREPLY[@]}"')

    def complete(line: str) -> list[str]:
        return subprocess.run([need("bash"), "-c", probe, str(script), line, *line.split()], capture_output=True,
                              text=True, check=True).stdout.split()

    assert complete("pre") == ["predict"]
    assert "--proto" in complete("predict --pr")


def test_man_page_renders_without_warnings_and_lists_every_command(tmp_path):
    from vnetbench.cli.commands import SUMMARIES

    page = tmp_path / "vnetbench.1"
    page.write_text(subprocess.run([sys.executable, str(ROOT / "packaging" / "manpage.py")], capture_output=True,
                                   text=True, check=True).stdout)
    proc = subprocess.run([need("man"), "--warnings", "-l", "-Tutf8", str(page)], capture_output=True, text=True,
                          env={**os.environ, "MANWIDTH": "100"})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    text = "".join(c for i, c in enumerate(proc.stdout) if c != "\b" and proc.stdout[i + 1:i + 2] != "\b")
    for command in SUMMARIES:
        assert f"\n   {command}\n" in text, command
    assert "EXIT STATUS" in text and "which extra installs it" in text


def test_third_party_notices_come_from_the_installed_distributions(tmp_path):
    out = tmp_path / "NOTICES.txt"
    subprocess.run([sys.executable, str(ROOT / "packaging" / "third_party_notices.py"), "--output", str(out)],
                   check=True)
    text = out.read_text()
    from importlib.metadata import version

    assert f"numpy {' ' * 0}" in text and version("numpy") in text
    pytest.importorskip("PySide6")
    assert "PySide6 (Qt for Python) are used under the GNU Lesser General Public License" in text
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in text and "GNU GENERAL PUBLIC LICENSE" in text


# --- bundled examples by name ------------------------------------------------------------------------------

def test_a_bundled_example_is_found_by_name(tmp_path, capsys, monkeypatch):
    from vnetbench import example_names
    from vnetbench.cli.main import main

    monkeypatch.chdir(tmp_path)                       # nowhere near resources/
    assert "esx-four-cases" in example_names()
    assert main(["validate", "esx-four-cases"]) == 0
    assert main(["validate", "no-such-example"]) == 2
    assert "no-such-example" in capsys.readouterr().err
