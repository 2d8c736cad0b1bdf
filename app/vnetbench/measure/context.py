"""What a run records about the design and the prediction at the time it was measured.

The prediction arrives as ``Prediction.to_dict()`` (measure does not import predict: the CLI and the GUI
hold the engine and pass its answer in), and is reduced to the figures a comparison needs, plus the design
facts that explain them (the pNIC speed a crossing path is capped by, the vNIC type of the sender).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..model import Index, Topology
from ..model.fileformat import to_data
from .result import Measurement, Run


def design_digest(topology: Topology) -> str:
    """A short hash of what the design means (layout and notes excluded: moving a box changes nothing)."""
    data = to_data(topology)
    data.pop("layout", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pnic_cap_mbps(topology: Topology, *endpoint_ids: str) -> float | None:
    """The slowest up pNIC of the hosts the endpoints run on: what a path leaving those hosts is capped by."""
    index = Index(topology)
    speeds = []
    for ep_id in endpoint_ids:
        vm = index.get(ep_id)
        host = index.get(getattr(vm, "host", None))
        speeds += [p.speed_mbps for p in getattr(host, "pnics", []) if p.up]
    return float(min(speeds)) if speeds else None


def nic_type(topology: Topology, endpoint_id: str) -> str | None:
    vm = Index(topology).get(endpoint_id)
    vnics = getattr(vm, "vnics", None) or []
    return str(vnics[0].type) if vnics and hasattr(vnics[0], "type") else None


def snapshot(prediction: dict[str, Any] | None, topology: Topology, src_id: str, dst_id: str,
             reverse: bool = False) -> dict[str, Any] | None:
    """The prediction's verdict and the estimate for the direction the data flows, with the design facts."""
    if prediction is None:
        return None
    trace = prediction.get("reverse" if reverse else "forward") or {}
    estimate = trace.get("estimate") or {}
    sender = dst_id if reverse else src_id
    return {
        "verdict": prediction.get("verdict"),
        "throughput_mbps": estimate.get("throughput_mbps"),
        "latency_us": estimate.get("latency_us"),
        "bottleneck": estimate.get("bottleneck", ""),
        "source": estimate.get("source", ""),
        "crosses_pnic": bool(trace.get("pnics")),
        "reasons": list(prediction.get("reasons") or []),
        "pnic_cap_mbps": pnic_cap_mbps(topology, src_id, dst_id),
        "sender_nic_type": nic_type(topology, sender),
    }


def make_run(measurement: Measurement, topology: Topology, src_id: str, dst_id: str,
             prediction: dict[str, Any] | None, backend: str = "", label: str = "") -> Run:
    """A ``Run`` ready to store: the measurement with the design, the pair and the prediction at the time."""
    index = Index(topology)
    src, dst = index.get(src_id), index.get(dst_id)
    return Run.from_measurement(
        measurement, src=src_id, dst=dst_id, src_name=getattr(src, "name", src_id),
        dst_name=getattr(dst, "name", dst_id), design_name=topology.name, design_digest=design_digest(topology),
        backend=backend, label=label,
        prediction=snapshot(prediction, topology, src_id, dst_id, measurement.spec.reverse))
