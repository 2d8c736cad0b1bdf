"""What a real vCenter holds on a distributed switch and vcsim drops, written into a saved inventory
(``govc object.save``) so that ``vcsim -load`` serves it: the members' pNICs with the uplink ports they are on
(``config.host``; vcsim keeps only ``summary.hostMember``) and the LACP groups (``config.lacpGroupConfig``;
vcsim has no ``UpdateDVSLacpGroupConfig``)."""

from __future__ import annotations

import re
from pathlib import Path

XSI = "XMLSchema-instance:type"


def member_xml(host_moid: str, pnics: list[tuple[str, str]]) -> str:
    """A member host with its pNICs, each on an uplink port (by key), as ``config.host[]`` reports it."""
    specs = "".join(f"<pnicSpec><pnicDevice>{dev}</pnicDevice><uplinkPortKey>{port}</uplinkPortKey></pnicSpec>"
                    for dev, port in pnics)
    return (f'<host><config><host type="HostSystem">{host_moid}</host><maxProxySwitchPorts>64</maxProxySwitchPorts>'
            f'<backing {XSI}="DistributedVirtualSwitchHostMemberPnicBacking">{specs}</backing></config>'
            "<status>up</status></host>")


def lag_xml(key: str, name: str, mode: str, algorithm: str, ports: list[str]) -> str:
    """A LAG as ``config.lacpGroupConfig[]`` reports it once ``UpdateDVSLacpGroupConfig`` made it."""
    return (f"<lacpGroupConfig><key>{key}</key><name>{name}</name><mode>{mode}</mode><uplinkNum>{len(ports)}"
            f"</uplinkNum><loadbalanceAlgorithm>{algorithm}</loadbalanceAlgorithm>"
            + "".join(f"<uplinkName>{name}-{n}</uplinkName>" for n in range(len(ports)))
            + "".join(f"<uplinkPortKey>{p}</uplinkPortKey>" for p in ports) + "</lacpGroupConfig>")


def record_dvs(saved: Path, name: str, *parts: str) -> None:
    """Put ``parts`` (``member_xml``, ``lag_xml``) into the saved config of the distributed switch ``name``."""
    record = next(p for p in saved.glob("*-DistributedVirtualSwitch-*.xml") if f"<name>{name}</name>" in p.read_text())
    text, count = re.subn(r"(<maxMtu>)", "".join(parts).replace("\\", r"\\") + r"\1", record.read_text(), count=1)
    assert count == 1, f"no config of {name} in {record}"
    record.write_text(text)
