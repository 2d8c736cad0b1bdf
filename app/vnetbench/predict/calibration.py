"""Calibration profiles: the costs estimates are computed from, read from data files that name their sources.

A profile lives in ``resources/calibration/<name>.yaml`` (or any path). ``published`` holds the figures of the
seed articles; a measured run can be written as a profile of its own with the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from .. import resources_dir

DEFAULT_PROFILE = "published"


class CalibrationError(ValueError):
    """A profile file is missing or lacks a figure; the message names the file and the key."""


@dataclass(frozen=True)
class Calibration:
    """The figures estimates are made from (vNIC rates, latencies, packet rates), with their sources."""

    name: str
    vnic_mbps: dict[str, float]
    pnic_efficiency: float
    paravirtual_types: frozenset[str]
    emulated_forwarding_cap_mbps: float
    latency_us: dict[str, float]
    sources: dict[str, str] = field(default_factory=dict)
    #: small-UDP packets/s a qemu sender reaches, per attachment (physical, tap_bridge, macvtap, raw_af_packet)
    packet_rate_pps: dict[str, float] = field(default_factory=dict)
    #: lowest and highest round of a measured figure, keyed "vnic_mbps/<type>" or "packet_rate_pps/<kind>"
    spreads: dict[str, tuple[float, float]] = field(default_factory=dict)

    def vnic(self, nic_type: str | None) -> float:
        """The rate (Mbit/s) a vNIC type carries; vmxnet3's when the type is unknown."""
        return self.vnic_mbps.get(nic_type or "vmxnet3", self.vnic_mbps.get("vmxnet3", 10000.0))

    def vnic_spread(self, nic_type: str | None) -> tuple[float, float] | None:
        """The measured rounds' range of ``vnic()``'s figure, where the profile measured one."""
        key = nic_type if nic_type in self.vnic_mbps else "vmxnet3"
        return self.spreads.get(f"vnic_mbps/{key}")

    def latency(self, kind: str) -> float:
        """The latency (µs) one kind of hop adds; 0 for a kind the profile does not name."""
        return self.latency_us.get(kind, 0.0)

    @property
    def source(self) -> str:
        """Where the figures come from, for the estimate's provenance."""
        return f"{self.name} ({', '.join(self.sources) or 'no sources named'})"


def _value(data: dict, key: str, where: str) -> float:
    item = data.get(key)
    if isinstance(item, dict):
        item = item.get("value")
    if not isinstance(item, (int, float)) or isinstance(item, bool):
        raise CalibrationError(f"{where}: {key} needs a number (write `{key}: {{value: N, source: ...}}`)")
    return float(item)


def _spreads(data: dict, section: str, where: str) -> dict[str, tuple[float, float]]:
    """``spread: [low, high]`` of each figure in ``section`` that has one (a profile measured in rounds)."""
    found = {}
    for key, item in (data.get(section) or {}).items():
        spread = item.get("spread") if isinstance(item, dict) else None
        if spread is None:
            continue
        if not (isinstance(spread, list) and len(spread) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in spread)):
            raise CalibrationError(f"{where}: {section}: {key}: spread needs two numbers (write `spread: [LOW, HIGH]`)")
        found[f"{section}/{key}"] = (float(min(spread)), float(max(spread)))
    return found


def _path(name: str) -> Path:
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml"):
        return candidate
    return resources_dir() / "calibration" / f"{name}.yaml"


@cache
def load_profile(name: str = DEFAULT_PROFILE) -> Calibration:
    """A calibration profile by name or path, read once; a missing figure is a ``CalibrationError``."""
    path = _path(name)
    try:
        # libyaml's parser when PyYAML has it: the pure-Python one costs every command that predicts ~15 ms
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except FileNotFoundError:
        raise CalibrationError(f"calibration profile {name!r} not found at {path}") from None
    except yaml.YAMLError as exc:
        raise CalibrationError(f"{path}: not readable YAML ({exc})") from None
    except (OSError, ValueError) as exc:   # a directory, no permission, a NUL in the name, not UTF-8
        raise CalibrationError(f"calibration profile {name!r} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{path}: a profile is a mapping of figures")
    where = str(path)
    vnics = data.get("vnic_mbps") or {}
    fwd = data.get("forwarding_vm") or {}
    lat = data.get("latency_us") or {}
    rates = data.get("packet_rate_pps") or {}
    return Calibration(
        name=str(data.get("name") or name),
        vnic_mbps={k: _value(vnics, k, f"{where}: vnic_mbps") for k in vnics},
        pnic_efficiency=_value(data, "pnic_efficiency", where),
        paravirtual_types=frozenset(fwd.get("paravirtual_types") or ()),
        emulated_forwarding_cap_mbps=_value(fwd, "emulated_cap_mbps", f"{where}: forwarding_vm"),
        latency_us={k: _value(lat, k, f"{where}: latency_us") for k in lat},
        sources={str(k): str(v) for k, v in (data.get("sources") or {}).items()},
        packet_rate_pps={k: _value(rates, k, f"{where}: packet_rate_pps") for k in rates},
        spreads=_spreads(data, "vnic_mbps", where) | _spreads(data, "packet_rate_pps", where),
    )
