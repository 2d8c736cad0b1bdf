"""The prediction engine: a compiled network plus the walk, cached, with the all-pairs matrix and edits.

``Engine`` is what the GUI and the CLI hold. It compiles the design once (segments, graph, devices), answers
single pairs by walking, and the matrix on equivalence classes. After an edit ``changed`` recompiles the
network (cheap) and keeps the class answers whose inputs did not change.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.document import Change
from ..model.objects import Portgroup, Topology, VNic
from .calibration import DEFAULT_PROFILE, Calibration, CalibrationError, load_profile
from .matrix import Matrix, MatrixBuilder
from .network import Network
from .result import Prediction
from .walk import Walker


class Engine:
    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self._matrix: Matrix | None = None
        self._builder: MatrixBuilder | None = None
        self._moved: set[str] = set()
        self._compile()

    def _compile(self) -> None:
        self.network = Network(self.topology)
        self.calibration = self._profile()
        self.walker = Walker(self.network, self.calibration)

    def _profile(self) -> Calibration:
        """The design's calibration profile; the published one (saying why) when it cannot be read, so a
        bad profile name costs the estimates' provenance, not the prediction."""
        name = self.topology.calibration if isinstance(self.topology.calibration, str) else None
        try:
            return load_profile(name or DEFAULT_PROFILE)
        except CalibrationError as exc:
            published = load_profile(DEFAULT_PROFILE)
            return replace(published, name=f"{published.name} (instead of {name!r}: {exc})")

    def resolve(self, name_or_id: str) -> str:
        """An endpoint id from a VM / physical host id or name; ``LookupError`` suggests the closest names."""
        if name_or_id in self.network.points:
            return name_or_id
        return self.network.index.endpoint(name_or_id).id

    def predict(self, src: str, dst: str, proto: str | None = None, port: int | None = None) -> Prediction:
        proto = proto.lower() if proto else None
        if proto == "any":
            proto = None
        return self.walker.flow(self.resolve(src), self.resolve(dst), proto, port, explain=True)

    def matrix(self) -> Matrix:
        if self._matrix is None and self._builder is not None and self._moved:
            self._matrix = self._builder.update(self.walker, self._moved)
            self._moved = set()
        if self._matrix is None:
            self._builder = MatrixBuilder(self.walker)
            self._matrix = self._builder.build()
        return self._matrix

    def changed(self, change: Change) -> None:
        """An edit happened. When it only moved some VMs' interfaces (a portgroup's VLAN, a vNIC's network),
        patch the compiled network and, at the next ``matrix()``, recompute just those VMs' classes;
        otherwise recompile (cheap next to the matrix) and rebuild."""
        moved = self._moved_by(change)
        if moved is not None and self.network.refresh(moved):
            if moved:  # a portgroup nobody is on changes no answer
                self._moved |= moved
                self._matrix = None
            return
        if change.op == "reset":
            self.topology = change.obj
        self._compile()
        self._builder = None
        self._moved = set()
        self._matrix = None

    def _moved_by(self, change: Change) -> set[str] | None:
        """The VMs whose interfaces an edit moves, when that is all it does; None for any other edit."""
        if change.op != "set":
            return None
        if isinstance(change.obj, Portgroup) and change.field in ("vlan", "native_vlan") and change.obj.uplinks is None:
            if any(itf.network == change.obj.id for dlr in self.topology.nsx.dlrs for itf in dlr.interfaces):
                return None  # a DLR interface sits on it: the router moves too
            return set(self.network.on_network.get(change.obj.id, ()))
        if isinstance(change.obj, VNic) and change.field in ("network", "connected", "guest_vlan"):
            owner = self.network.index.parent(change.obj.id)
            return {owner.id} if owner is not None else None
        return None


def predict(topology: Topology, src: str, dst: str, proto: str | None = None, port: int | None = None) -> Prediction:
    """One flow between two endpoints (VM or physical host, by id or name), both directions."""
    return Engine(topology).predict(src, dst, proto, port)
