"""The install paths, for real: the wheel in fresh virtual environments outside the checkout (core only, every
extra, the lowest declared versions), and the .deb installed into a fresh Debian 12 root made by debootstrap.

Each path runs the issue's smoke list: --version; demo on a bundled example found by name; validate, predict
and matrix; export of the report (HTML and PDF) and an SVG; lab plan; the GUI under Xvfb opening an example,
with a screenshot; and, without an extra, its one-line hint. Slow (minutes): PyPI and Debian's mirror must be
reachable. Caches under ~/.cache/vnetbench (the debootstrap root, the PyInstaller folder, apt's downloads) make
a second run fast.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from vnetbench import __version__

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "packaging" / "constraints.txt"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "vnetbench"
ARTIFACTS = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "install"
EXAMPLE = "esx-four-cases"
UV = shutil.which("uv", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
#: the oldest glibc the .deb runs on, as packaging/README.md states it (checked against the binaries below)
OLDEST_GLIBC = "2.36"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(UV is None, reason="uv is not installed (the test extra has it)")]

Run = Callable[..., subprocess.CompletedProcess]


def sh(*argv: str | Path, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def report(line: str) -> None:
    """Sizes and build times, for the log and for packaging/README.md."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(ARTIFACTS / "figures.txt", "a", encoding="utf-8") as figures:
        figures.write(line + "\n")
    print(line)


# --- the wheel and the sdist -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    start = time.monotonic()
    sh(UV, "build", "--quiet", "--out-dir", out, ROOT)   # the sdist, then the wheel built from the sdist
    found = {"wheel": next(out.glob("vnetbench-*.whl")), "sdist": next(out.glob("vnetbench-*.tar.gz"))}
    report(f"wheel + sdist built in {time.monotonic() - start:.1f} s: "
           + ", ".join(f"{p.name} {p.stat().st_size / 1e6:.2f} MB" for p in found.values()))
    return found


def resource_files() -> set[str]:
    return {p.relative_to(ROOT / "resources").as_posix() for p in (ROOT / "resources").rglob("*")
            if p.is_file() and p.parts[len(ROOT.parts) + 1] != "screenshots"}


def test_wheel_and_sdist_carry_the_resources_and_the_licence(built):
    wheel = zipfile.ZipFile(built["wheel"])
    names = set(wheel.namelist())
    assert {f"vnetbench/resources/{name}" for name in resource_files()} <= names
    assert not [n for n in names if "screenshots" in n or "__pycache__" in n]
    dist_info = f"vnetbench-{__version__}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata and "License-File: LICENSE" in metadata
    assert "pyroute2" not in metadata, "nothing imports pyroute2"
    with tarfile.open(built["sdist"]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {f"resources/{name}" for name in resource_files()} <= members
    assert {"LICENSE", "setup.py", "pyproject.toml"} <= members


def make_venv(where: Path, requirement: str, *pip_args: str) -> Path:
    """A fresh virtual environment outside the checkout with ``requirement`` installed; returns its bin/."""
    sh(UV, "venv", "--quiet", "--python", sys.executable, where)
    sh(UV, "pip", "install", "--quiet", "--python", where / "bin" / "python", *pip_args, requirement)
    return where / "bin"


def runner(bin_dir: Path, work: Path) -> Run:
    """Runs a command of that environment in ``work`` (far from the checkout), with a fresh home and no
    PYTHONPATH: the only vnetbench it can find is the installed one."""
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
           "XDG_RUNTIME_DIR": str(home)}
    env.update({k: os.environ[k] for k in ("DISPLAY", "XAUTHORITY") if k in os.environ})

    def run(*argv: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
        proc = subprocess.run(list(argv), cwd=work, env=env, capture_output=True, text=True, **kwargs)
        if check:
            assert proc.returncode == 0, f"{argv}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        return proc
    return run


def assert_hint(proc: subprocess.CompletedProcess, extra: str) -> None:
    """A missing optional part: exit 2, one line naming the pip command, no traceback."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and f"pip install 'vnetbench[{extra}]'" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def check_headless_core(run: Run) -> None:
    assert run("vnetbench", "--version").stdout.strip() == f"vnetbench {__version__}"
    demo = run("vnetbench", "demo", EXAMPLE).stdout
    assert "Predicted vs expected" in demo and "DIFF" not in demo
    assert "no problems" in run("vnetbench", "validate", EXAMPLE).stdout
    assert "in-host" in run("vnetbench", "predict", EXAMPLE, "--from", "web01", "--to", "app01").stdout
    assert "web01" in run("vnetbench", "matrix", EXAMPLE).stdout
    assert run("vnetbench", "lab", "plan", EXAMPLE).stdout.startswith("plan: ")


def check_dot(run: Run, work: Path) -> None:
    """A text export, which needs no extra."""
    run("vnetbench", "export", EXAMPLE, "-f", "dot", "-o", "d.dot")
    assert (work / "d.dot").read_text().lstrip().startswith(("digraph", "graph"))


def check_full(run: Run, work: Path, name: str) -> None:
    """Everything the extras add: the report (HTML, PDF) and an SVG drawn headless, the GUI under Xvfb."""
    for fmt, out, magic in (("report-html", "r.html", b"<!DOCTYPE html"), ("report-pdf", "r.pdf", b"%PDF"),
                            ("svg", "d.svg", b"<?xml")):
        run("vnetbench", "export", EXAMPLE, "-f", fmt, "-o", out)
        assert (work / out).read_bytes().lstrip()[:len(magic)].lower() == magic.lower(), fmt
    assert (work / "r.pdf").stat().st_size > 20_000, "a report with its diagram, not an empty page"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(work / "r.pdf", ARTIFACTS / f"{name}-report.pdf")
    shutil.copy(work / "d.svg", ARTIFACTS / f"{name}-diagram.svg")
    for shell in ("bash", "zsh", "fish"):
        assert "vnetbench" in run("vnetbench", "completion", shell).stdout


def check_plugins(run: Run) -> None:
    """Every backend plugin loads (its SDK is there and imports)."""
    plugins = run("python", "-c", "from vnetbench.backends.discovery import discover; "
                                  "print([(p.name, p.error) for p in discover()])").stdout
    for name in ("local", "vsphere", "kvm"):
        assert f"('{name}', None)" in plugins, plugins


# --- screenshots under Xvfb --------------------------------------------------------------------------------

GRAB = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
image = app.primaryScreen().grabWindow(0).toImage()
image.save(sys.argv[1])
step = max(1, image.width() // 64)
colours = {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}
print(len(colours))
"""


def screenshot_of_gui(start: Callable[[], subprocess.Popen], path: Path) -> None:
    """Start the GUI on the X server the suite runs in, wait until the screen shows more than a few colours
    (a window drawn), let it settle, and save a screenshot of the whole screen."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X server: run the suite under xvfb-run (scripts/run-tests.sh does)")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb"}
    gui = start()
    try:
        deadline = time.monotonic() + 60
        colours = 0
        while time.monotonic() < deadline and gui.poll() is None:
            time.sleep(1)
            colours = int(sh(sys.executable, "-c", GRAB, path, env=env).stdout)
            if colours > 20:
                break
        assert gui.poll() is None, f"the GUI exited {gui.returncode}: {gui.communicate()[1]}"
        assert colours > 20, "no window appeared within a minute"
        time.sleep(3)
        sh(sys.executable, "-c", GRAB, path, env=env)
    finally:
        gui.terminate()
        try:
            gui.wait(10)
        except subprocess.TimeoutExpired:
            gui.kill()
            gui.wait()


# --- the wheel, installed -----------------------------------------------------------------------------------

def test_core_wheel_outside_the_checkout(built, tmp_path):
    """Core only: the headless commands work, and every command that needs an extra says which, in one line."""
    run = runner(make_venv(tmp_path / "venv", str(built["wheel"]), "-c", str(CONSTRAINTS)), tmp_path / "work")
    where = run("python", "-c", "import vnetbench; print(vnetbench.resources_dir())").stdout.strip()
    assert Path(where).is_relative_to(tmp_path / "venv"), where
    check_headless_core(run)
    check_dot(run, tmp_path / "work")
    assert_hint(run("vnetbench", "gui", EXAMPLE, check=False), "gui")
    assert_hint(run("vnetbench-gui", check=False), "gui")
    assert_hint(run("vnetbench", "export", EXAMPLE, "-f", "svg", check=False), "export")
    assert_hint(run("vnetbench", "export", EXAMPLE, "-f", "report-html", check=False), "export")
    assert_hint(run("vnetbench", "deploy", EXAMPLE, "--backend", "vsphere", "--url", "https://vc.example/sdk",
                    check=False), "vsphere")
    assert_hint(run("vnetbench", "deploy", EXAMPLE, "--backend", "kvm", check=False), "kvm")


def test_wheel_with_every_extra_passes_the_smoke_list(built, tmp_path):
    extras = "gui,export,vsphere,kvm"
    run = runner(make_venv(tmp_path / "venv", f"vnetbench[{extras}] @ {built['wheel'].as_uri()}",
                           "-c", str(CONSTRAINTS)), tmp_path / "work")
    check_headless_core(run)
    check_full(run, tmp_path / "work", "wheel")
    check_plugins(run)
    shot = ARTIFACTS / "wheel-gui.png"
    screenshot_of_gui(lambda: subprocess.Popen([str(tmp_path / "venv" / "bin" / "vnetbench-gui"), EXAMPLE],
                                               cwd=tmp_path / "work", stderr=subprocess.PIPE, text=True,
                                               env={**os.environ, "HOME": str(tmp_path / "work" / "home"),
                                                    "QT_QPA_PLATFORM": "xcb"}), shot)
    assert shot.stat().st_size > 10_000


def lower_bounds(extras: list[str]) -> list[str]:
    """``name==X`` for every requirement ``name>=X`` of the core and ``extras`` that applies to this Python."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [r for extra in extras for r in project["optional-dependencies"][extra]]
    pins = {}
    for text in declared:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate():
            low = [spec.version for spec in requirement.specifier if spec.operator == ">="]
            assert low, f"{text}: every dependency declares its lowest version (>=)"
            pins[requirement.name] = f"{requirement.name}=={low[0]}"
    return sorted(pins.values())


def test_lowest_declared_versions_still_work(built, tmp_path):
    """Every dependency at the lowest version pyproject.toml allows: the lower bounds must stay true."""
    extras = ["gui", "export", "vsphere", "kvm"]
    lowest = tmp_path / "lower-bounds.txt"
    lowest.write_text("\n".join(lower_bounds(extras)) + "\n")
    run = runner(make_venv(tmp_path / "venv", f"vnetbench[{','.join(extras)}] @ {built['wheel'].as_uri()}",
                           "-c", str(lowest)), tmp_path / "work")
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    freeze = sh(UV, "pip", "freeze", "--python", tmp_path / "venv" / "bin" / "python").stdout.splitlines()
    installed = {canonicalize_name(name): version for name, _, version in (line.partition("==") for line in freeze)}
    for pin in lowest.read_text().split():   # names as PEP 503 has them: ruamel.yaml is installed as ruamel-yaml
        name, _, version = pin.partition("==")
        assert Version(installed.get(canonicalize_name(name), "0")) == Version(version), (pin, installed.get(name))
    report("lowest declared versions, installed and smoke-tested: " + " ".join(lowest.read_text().split()))
    check_headless_core(run)
    check_full(run, tmp_path / "work", "lowest")
    check_plugins(run)


# --- the .deb, installed into a fresh Debian 12 root ---------------------------------------------------------

DEBIAN_MIRROR = "http://deb.debian.org/debian"


@pytest.fixture(scope="module")
def deb(tmp_path_factory) -> Path:
    """packaging/deb/build-deb.sh's package; its PyInstaller folder is cached while the sources stay the same."""
    for tool in ("dpkg-deb", "objdump"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    out = tmp_path_factory.mktemp("deb")
    start = time.monotonic()
    sh("bash", ROOT / "packaging" / "deb" / "build-deb.sh", "--work", CACHE / "deb-build", "--out", out)
    package = next(out.glob("vnetbench_*.deb"))
    report(f".deb built in {time.monotonic() - start:.0f} s (a cached PyInstaller folder makes it faster): "
           f"{package.name} {package.stat().st_size / 1e6:.1f} MB")
    return package


def test_deb_holds_the_bundle_the_desktop_files_the_docs_and_the_oldest_glibc(deb, tmp_path):
    sh("dpkg-deb", "-x", deb, tmp_path)
    control = sh("dpkg-deb", "-f", deb, "Depends").stdout
    glibc = sh("bash", ROOT / "packaging" / "deb" / "glibc-needed.sh", tmp_path / "opt" / "vnetbench").stdout.strip()
    report(f"oldest glibc the .deb runs on (newest GLIBC_ symbol version any ELF in it needs): {glibc}")
    assert glibc == OLDEST_GLIBC, "update OLDEST_GLIBC here and in packaging/README.md"
    assert f"libc6 (>= {glibc})" in control
    for path in ("usr/bin/vnetbench", "usr/bin/vnetbench-gui", "usr/share/applications/io.vnetbench.Vnetbench.desktop",
                 "usr/share/mime/packages/io.vnetbench.Vnetbench.xml", "usr/share/metainfo/io.vnetbench.Vnetbench.metainfo.xml",
                 "usr/share/icons/hicolor/scalable/apps/vnetbench.svg", "usr/share/man/man1/vnetbench.1.gz",
                 "usr/share/bash-completion/completions/vnetbench", "usr/share/zsh/vendor-completions/_vnetbench",
                 "usr/share/fish/vendor_completions.d/vnetbench.fish", "usr/share/doc/vnetbench/copyright",
                 "opt/vnetbench/LICENSE", "opt/vnetbench/THIRD-PARTY-NOTICES.txt"):
        assert (tmp_path / path).exists() or (tmp_path / path).is_symlink(), path
    notices = (tmp_path / "opt" / "vnetbench" / "THIRD-PARTY-NOTICES.txt").read_text()
    for needed in ("PySide6", "GNU LESSER GENERAL PUBLIC LICENSE", "Version 3, 29 June 2007", "numpy", "Jinja2"):
        assert needed in notices, needed
    completions = {"bash": "usr/share/bash-completion/completions/vnetbench",
                   "zsh": "usr/share/zsh/vendor-completions/_vnetbench",
                   "fish": "usr/share/fish/vendor_completions.d/vnetbench.fish"}
    for shell, path in completions.items():
        if shutil.which(shell):
            sh(shell, "-n", tmp_path / path)
    man = subprocess.run(["man", "--warnings", "-l", "-Tutf8", str(tmp_path / "usr/share/man/man1/vnetbench.1.gz")],
                         capture_output=True, text=True, env={**os.environ, "MANWIDTH": "100"})
    text = re.sub(".\b", "", man.stdout)                     # bold and underline are overstrikes
    assert man.returncode == 0 and "EXIT STATUS" in text and "completion" in text, man.stderr


def debian_root(where: Path) -> Path:
    """A minimal Debian 12 (debootstrap --variant=minbase), made once and kept as a tarball in the cache."""
    tarball = CACHE / "debootstrap" / "bookworm-minbase.tar.gz"
    if not tarball.is_file():
        if shutil.which("debootstrap") is None:
            pytest.skip("debootstrap is not installed (scripts/setup.sh installs it)")
        fresh = where.parent / "bootstrap"
        sh("debootstrap", "--variant=minbase", "bookworm", fresh, DEBIAN_MIRROR)
        tarball.parent.mkdir(parents=True, exist_ok=True)
        sh("tar", "--numeric-owner", "-C", fresh, "-czf", f"{tarball}.part", ".")
        os.replace(f"{tarball}.part", tarball)
        shutil.rmtree(fresh)
    where.mkdir()
    sh("tar", "--numeric-owner", "-C", where, "-xzf", tarball)
    shutil.copy("/etc/resolv.conf", where / "etc" / "resolv.conf")
    (where / "work").mkdir()
    return where


def chroot(root: Path, *argv: str, popen: bool = False, check: bool = True):
    """Run ``argv`` in ``root`` (working folder /work) in a private mount namespace: /proc, the X server's
    socket and apt's download cache are mounted in for the command only."""
    archives = CACHE / "apt-archives"
    (archives / "partial").mkdir(parents=True, exist_ok=True)
    xauth = os.environ.get("XAUTHORITY")
    if xauth and Path(xauth).is_file():
        shutil.copy(xauth, root / "tmp" / "Xauthority")
    env = ["HOME=/root", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive",
           "XAUTHORITY=/tmp/Xauthority", f"DISPLAY={os.environ.get('DISPLAY', '')}"]
    script = ('mount -t proc proc "$0/proc" && mount --bind "$1" "$0/var/cache/apt/archives" && '
              '{ [ ! -d /tmp/.X11-unix ] || mount --bind /tmp/.X11-unix "$0/tmp/.X11-unix"; } && shift && '
              f'exec chroot "$0" /usr/bin/env -i {" ".join(env)} sh -c \'cd /work && exec "$@"\' sh "$@"')
    (root / "tmp" / ".X11-unix").mkdir(exist_ok=True)
    full = ["unshare", "--mount", "--fork", "--kill-child", "sh", "-c", script, str(root), str(archives), *argv]
    if popen:
        return subprocess.Popen(full, stderr=subprocess.PIPE, text=True)
    proc = subprocess.run(full, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"{argv}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_deb_installs_and_runs_in_a_fresh_debian_root(deb, tmp_path):
    """apt installs the .deb with its dependencies into a bare Debian 12; the smoke list runs there."""
    root = debian_root(tmp_path / "root")
    shutil.copy(deb, root / "tmp" / deb.name)
    chroot(root, "apt-get", "-qq", "update")
    # shared-mime-info and desktop-file-utils (Recommends) run the triggers that register the type and launcher
    chroot(root, "apt-get", "-y", "-qq", "--no-install-recommends", "install", f"/tmp/{deb.name}",
           "shared-mime-info", "desktop-file-utils")

    # as the launchers run them: the bootloader puts _internal on the library path, Qt's own libraries too
    bundle_path = "/opt/vnetbench/_internal:/opt/vnetbench/_internal/PySide6/Qt/lib"
    missing = chroot(root, "sh", "-c", f"find /opt/vnetbench -name '*.so*' -type f | LD_LIBRARY_PATH={bundle_path} "
                                       "xargs ldd 2>/dev/null | grep 'not found' | sort -u", check=False).stdout
    assert missing == "", f"libraries the .deb's Depends do not bring:\n{missing}"
    assert "application/x-vnetbench-design=io.vnetbench.Vnetbench.desktop;" in \
        (root / "usr/share/applications/mimeinfo.cache").read_text()
    assert "application/x-vnetbench-design:*.vnet.yaml" in (root / "usr/share/mime/globs2").read_text()

    def run(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return chroot(root, *argv, check=check)

    check_headless_core(run)
    check_dot(run, root / "work")
    check_full(run, root / "work", "deb")
    assert_hint(run("vnetbench", "deploy", EXAMPLE, "--backend", "kvm", check=False), "kvm")
    shot = ARTIFACTS / "deb-gui.png"
    screenshot_of_gui(lambda: chroot(root, "vnetbench-gui", EXAMPLE, popen=True), shot)
    assert shot.stat().st_size > 10_000
