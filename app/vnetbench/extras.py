"""The one map from each optional module to the extra that installs it, and the hint when one is missing.

pyproject.toml's ``[project.optional-dependencies]`` declares the extras; tests/packaging checks that every
distribution named here is in the extra named here, so the hint never sends anyone to the wrong extra.
"""

from __future__ import annotations

#: top-level import name -> (distribution, extras that install it, the first is the one to suggest)
OPTIONAL: dict[str, tuple[str, tuple[str, ...]]] = {
    "PySide6": ("PySide6-Essentials", ("gui", "export")),
    "shiboken6": ("PySide6-Essentials", ("gui", "export")),
    "pyqtgraph": ("pyqtgraph", ("gui",)),
    "keyring": ("keyring", ("vsphere", "gui")),
    "pyVmomi": ("pyvmomi", ("vsphere",)),
    "pyVim": ("pyvmomi", ("vsphere",)),
    "libvirt": ("libvirt-python", ("kvm",)),
    "jinja2": ("Jinja2", ("export",)),
    "weasyprint": ("weasyprint", ("export",)),
}


def install_hint(module: str | None, command: str | None = None) -> str | None:
    """``"<dist> is not installed: pip install 'vnetbench[<extra>]'"`` for an optional module, else None.

    ``command`` picks among the extras that carry the module: ``export`` needing Qt suggests [export]."""
    top = (module or "").partition(".")[0]
    if top not in OPTIONAL:
        return None
    dist, extras = OPTIONAL[top]
    extra = command if command in extras else extras[0]
    return f"{dist} is not installed: pip install 'vnetbench[{extra}]'"
