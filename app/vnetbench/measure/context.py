"""What a run records about the design and the prediction at the time it was measured.

The prediction arrives as the engine's typed answer (the CLI and the GUI hold the engine and pass it in; this
room reads the answer, never runs the engine) and is kept whole, with the direction the data flows and the design
facts that explain its figures (the pNIC speed a crossing path is capped by, the vNIC type of the sender).
"""

from __future__ import annotations

import hashlib
import json
from ..model import Index, Topology
from ..model.fileformat import to_data
from ..predict.result import Prediction
from .result import Measurement, Predicted, Run


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
    """The first vNIC's adapter type of an endpoint, which caps what a guest can send."""
    vm = Index(topology).get(endpoint_id)
    vnics = getattr(vm, "vnics", None) or []
    return str(vnics[0].type) if vnics and hasattr(vnics[0], "type") else None


def snapshot(prediction: Prediction | None, topology: Topology, src_id: str, dst_id: str,
             reverse: bool = False) -> Predicted | None:
    """The prediction with the direction the data flows and the design facts that explain its figures."""
    if prediction is None:
        return None
    return Predicted(prediction, reverse, pnic_cap_mbps(topology, src_id, dst_id),
                     nic_type(topology, dst_id if reverse else src_id))


def make_run(measurement: Measurement, topology: Topology, src_id: str, dst_id: str,
             prediction: Prediction | None, backend: str = "", label: str = "") -> Run:
    """A ``Run`` ready to store: the measurement with the design, the pair and the prediction at the time."""
    index = Index(topology)
    src, dst = index.get(src_id), index.get(dst_id)
    return Run.from_measurement(
        measurement, src=src_id, dst=dst_id, src_name=getattr(src, "name", src_id),
        dst_name=getattr(dst, "name", dst_id), design_name=topology.name, design_digest=design_digest(topology),
        backend=backend, label=label,
        prediction=snapshot(prediction, topology, src_id, dst_id, measurement.spec.reverse))
