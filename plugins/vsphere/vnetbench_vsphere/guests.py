"""vnetbench guest OS names (``model.nictypes.GUESTS``) <-> vSphere guest ids, both ways."""

from __future__ import annotations

#: What vnetbench creates for each guest OS name.
GUEST_IDS = {
    "debian": "debian8_64Guest", "ubuntu": "ubuntu64Guest", "rhel": "rhel7_64Guest", "linux": "otherLinux64Guest",
    "freebsd": "freebsd64Guest", "windows-xp": "winXPProGuest", "windows-7": "windows7_64Guest",
    "windows-2008r2": "windows7Server64Guest", "windows-8": "windows8_64Guest", "windows-10": "windows9_64Guest",
    "windows-2012": "windows8Server64Guest", "windows-2012r2": "windows8Server64Guest",
    "windows-2016": "windows9Server64Guest", "windows-2019": "windows2019srv_64Guest", "other": "otherGuest64",
}

#: Guest id prefixes, most specific first, for reading what vSphere holds.
_PREFIXES = [
    ("debian", "debian"), ("ubuntu", "ubuntu"), ("rhel", "rhel"), ("centos", "rhel"), ("oracleLinux", "rhel"),
    ("freebsd", "freebsd"), ("winXP", "windows-xp"), ("windows7Server", "windows-2008r2"), ("windows7", "windows-7"),
    ("windows8Server", "windows-2012"), ("windows8", "windows-8"), ("windows9Server", "windows-2016"),
    ("windows9", "windows-10"), ("windows2019srv", "windows-2019"), ("otherLinux", "linux"),
    ("other26xLinux", "linux"), ("other3xLinux", "linux"), ("other4xLinux", "linux"), ("other5xLinux", "linux"),
]


def guest_id(guest_os: str) -> str:
    """The vSphere guest id for a design's ``guest_os`` (a raw vSphere id is passed through)."""
    return guest_os if guest_os.endswith("Guest") else GUEST_IDS.get(guest_os.strip().lower(), "otherGuest64")


def guest_os(guest_id_: str | None) -> str:
    for prefix, name in _PREFIXES:
        if (guest_id_ or "").startswith(prefix):
            return name
    return "other"
