"""The prediction engine: a compiled network plus the walk, cached, with the all-pairs matrix kept current.

``Engine`` is what the GUI and the CLI hold. It compiles the design once (segments, graph, devices), answers
single pairs by walking, and the matrix on equivalence classes. After an edit (``changed``, fed by the
document) the next ``matrix()`` recomputes only what the edit can change:

- an edit that moves VMs' interfaces (a portgroup's VLAN, a vNIC's network, a VM's host): the compiled network
  is patched and those VMs' classes get new rows and columns;
- a firewall or DFW rule added, removed or changed: only pairs whose ends the rule names (on the smaller of
  its two sides, or the vNICs a DFW rule is applied at) can answer differently, so those endpoints' classes
  get new rows and columns; the first rule of a DFW that allows by default is such an edit too;
- anything else: the network is compiled again (lazily, when next used) and the matrix rebuilt.

An IPv6 matrix runs on a relabelled copy of the design (``relabel.Relabelling``), which follows the same edits
in place while they name no IPv6 network it has no label for; one that does makes the copy and matrix anew.
The copy's network is refreshed as VMs move; the design's own one, which tells the stories, only when a story
is next asked (``_Moves``): the matrix never reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..model.document import Change
from ..model.objects import VM, Action, DfwRule, Dfw, Forwarding, Portgroup, Rule, Topology, VmRole, VNic
from ..model.families import COPIED_LISTS, PROJECTED_FIELDS, Family, families_in, project, projection, tep_family
from .collector import paused
from .calibration import DEFAULT_PROFILE, Calibration, CalibrationError, load_profile
from .network import Network
from .relabel import Relabelling
from .result import Prediction
from .rules import generic
from .walk import Walker

if TYPE_CHECKING:
    from .matrix import Matrix, MatrixBuilder


class _Moves:
    """The VMs moved since ``network`` was last brought up to date (``Network.refresh``), when only the IPv6
    matrix's relabelled copy needed them at once. One refresh of them all reads the design as it is then, which
    is what refreshing after each move would have ended with."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.vms: set[str] = set()
        self.failed = False      # the refresh could not follow in place: the engine compiles anew

    def catch_up(self) -> None:
        if self.vms:
            vms, self.vms = self.vms, set()
            self.failed = self.failed or not self.network.refresh(vms)

#: Fields that change how answers are worded or estimated, never a verdict.
_WORDING_FIELDS = frozenset({"name", "description", "speed_mbps", "calibration"})
#: Rule fields whose change can alter a verdict (a name only changes the wording).
_RULE_FIELDS = frozenset({"action", "src", "dst", "proto", "port", "applied_to"})


class Engine:
    """One design's prediction: the pair walk, the matrix and what-if, kept up to date with the design's edits."""

    def __init__(self, topology: Topology, family: Family | None = None) -> None:
        self.topology = topology
        self.family = family     # the address family predicted (None: the design's first, IPv4 when it has it)
        self._matrix: Matrix | None = None        # numpy and the matrix code load with the first matrix
        self._builder: MatrixBuilder | None = None
        self._affected: set[str] = set()     # endpoints whose rows and columns the next matrix recomputes
        self._moved: set[str] = set()        # of those, the ones whose interfaces moved
        self._rules: dict[str, list] = {}    # firewall id ("dfw": the DFW) -> its rules edited since
        self._compile()

    def _compile(self) -> None:
        fam = self.family or families_in(self.topology)[0]
        self._clone = projection(self.topology, fam)
        # the design as the family sees it (itself, single-stack)
        self._seen = self._clone.topology if self._clone is not None else self.topology
        # an IPv4 underlay under an IPv6 view: its tunnel endpoints are judged in their own family
        teps = tep_family(self.topology) if self._clone is not None else None
        self._underlay = self.topology if teps is not None and teps != fam else None
        with paused():
            self._network = Network(self._seen, self._underlay)
        self._moves = _Moves(self._network)
        self.calibration = self._profile()
        self._walker = Walker(self._network, self.calibration)
        # the vectorised matrix holds addresses in 64 bits: an IPv6 design's runs on its IPv4 relabelling
        self._matrix_walker: Walker | None = self._walker if fam == 4 else None
        self._relabelling: Relabelling | None = None     # the IPv6 matrix's relabelled copy, kept through edits
        self._explainer: Walker | None = self._walker   # None: renamed since, the story compiles anew
        self._stale = False

    @property
    def walker(self) -> Walker:
        """The walker that tells one pair's story (with the names and estimates as they are now)."""
        self._catch_up()
        return self._explaining()

    def _catch_up(self) -> None:
        """Refresh the design's network for the VMs moved since (``_Moves``)."""
        self._moves.catch_up()
        if self._moves.failed:
            self._rebuild()

    def _explaining(self) -> Walker:
        """``walker``, its network possibly behind by the moves noted in ``_moves``."""
        if self._stale:
            self._compile()
        if self._explainer is None:   # renamed since: the matrix keeps its network, the story gets a new one
            self._explainer = Walker(Network(project(self.topology, self.family or families_in(self.topology)[0]),
                                             self._underlay), self._profile())
        return self._explainer

    @property
    def network(self) -> Network:
        """The compiled network the walker reads."""
        return self.walker.net

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
        """One pair's prediction with its story, by name or id; proto "any" means any protocol."""
        proto = proto.lower() if proto else None
        if proto == "any":
            proto = None
        return self.walker.flow(self.resolve(src), self.resolve(dst), proto, port, explain=True)

    def matrix(self, check: Callable[[], Any] | None = None) -> Matrix:
        """Every pair's verdict; after edits, recomputed only where they can change answers. ``check`` is
        called between blocks of work and may raise to stop (the next call starts the matrix afresh)."""
        from .matrix import MatrixBuilder

        if self._stale:
            self._compile()
        with paused():
            if self._matrix_walker is None:
                self._relabelling = Relabelling(self._seen)
                self._matrix_walker = Walker(Network(self._relabelling.topology, self._underlay), self.calibration)
            walker = self._matrix_walker
            try:
                if self._matrix is None and self._builder is not None and (self._affected or self._rules):
                    self._builder.check = check or (lambda: None)   # this call's, not the one that built it
                    self._matrix = self._builder.update(walker, self._moved, self._affected, self._rules)
                if self._matrix is None:
                    self._builder = MatrixBuilder(walker, check)
                    self._matrix = self._builder.build()
            except BaseException:
                self._builder = self._matrix = None
                raise
        self._affected, self._moved, self._rules = set(), set(), {}
        explainer = self._explaining()
        if self._matrix.engine_walker is not explainer:
            self._matrix = replace(self._matrix, engine_walker=explainer, catch_up=self._moves.catch_up)
        return self._matrix

    # --- edits ------------------------------------------------------------------------------------------

    def changed(self, change: Change) -> None:
        """An edit happened (already applied to the design): note what the next ``matrix()`` recomputes."""
        if change.op == "reset":
            self.topology = change.obj
            self._rebuild()
            return
        if self._stale:
            return  # a rebuild is due anyway, and reads the design as it is then
        if self._clone is not None and not self._mirrored(change):
            self._rebuild()   # an edit the projection cannot follow in place: compiled anew when next used
            return
        if self._matrix_walker is not self._walker and not self._relabelled(change):
            self._drop_relabelling()   # made anew when next used (the walk above follows the edit in place)
        if self._explainer is not self._walker:
            self._explainer = None    # the story's own network is out of date too
        if change.op == "set" and change.field in _WORDING_FIELDS:
            self._explainer = None    # only explanations and estimates change: compiled anew when asked
            return
        moved = self._moved_by(change)
        six = self._matrix_walker
        deferring = False
        if moved is not None and six is not None and six is not self._walker:   # an IPv6 matrix's copy
            deferring = six.net.refresh(moved)
            if not deferring:
                self._drop_relabelling()
        self._moves.vms |= moved or set()
        if not deferring:   # the design's network answers for the matrix (or the rules) now
            self._catch_up()
            if self._stale:
                return
        if moved is None:
            if not self._rule_edit(change):
                self._rebuild()
            return
        self._moved |= moved
        self._affected |= moved
        if moved:   # a portgroup nobody is on changes no answer
            self._matrix = None

    def _mirrored(self, change: Change) -> bool:
        """Make an edit of the design on its projection too (``families.projection``: the parts holding
        addresses are copies); False when the projection must be made anew (an address, a route, a part
        added or removed where the projection holds copies)."""
        assert self._clone is not None
        copied = self._clone.copies.get(id(change.obj if change.op == "set" else change.owner))
        if copied is None:
            return True   # a part the projection shares with the design: the edit is there already
        field = change.field or ""
        if change.op != "set":    # a list of the copy: the design's own one (rules), or a list of copies
            return getattr(copied, field, None) is getattr(change.owner, field, None)
        if field in PROJECTED_FIELDS or field in COPIED_LISTS:
            return False
        setattr(copied, field, getattr(change.obj, field))
        return True

    def _relabelled(self, change: Change) -> bool:
        """Make an edit of the design on the IPv6 matrix's relabelled copy too (``Relabelling``); False when
        the copy must be made anew (the edit names an IPv6 network it has no label for, or adds a part)."""
        relabelling = self._relabelling
        if relabelling is None:
            return False
        copies = self._clone.copies if self._clone is not None else {}
        if change.op == "set":
            return relabelling.follow(copies.get(id(change.obj), change.obj), change.field or "")
        if change.field == "rules" and isinstance(change.owner, (Forwarding, Dfw)):
            return relabelling.sync_rules(copies.get(id(change.owner), change.owner)) is not None
        return False

    def _drop_relabelling(self) -> None:
        self._matrix_walker = self._builder = self._matrix = self._relabelling = None

    def _rebuild(self) -> None:
        self._stale = True
        self._builder = self._matrix = None
        self._affected, self._moved, self._rules = set(), set(), {}

    def _moved_by(self, change: Change) -> set[str] | None:
        """The VMs whose interfaces an edit moves, when that is all it does; None for any other edit."""
        if change.op != "set":
            return None
        six = self._matrix_walker
        net = six.net if self._moves.vms and six is not None else self._network   # the one up to date
        if isinstance(change.obj, Portgroup) and change.field in ("vlan", "native_vlan") and change.obj.uplinks is None:
            if any(itf.network == change.obj.id for dlr in self.topology.nsx.dlrs for itf in dlr.interfaces):
                return None  # a DLR interface sits on it: the router moves too
            return set(net.on_network.get(change.obj.id, ()))
        if isinstance(change.obj, VNic) and change.field in ("network", "connected", "guest_vlan", "type", "uplink"):
            owner = net.index.parent(change.obj.id)
            return {owner.id} if owner is not None else None
        if isinstance(change.obj, VM) and change.field == "host" and change.obj.role is VmRole.VM:
            return {change.obj.id}
        return None

    def _rule_edit(self, change: Change) -> bool:
        """Take in a firewall or DFW rule edit incrementally; False when it needs a rebuild (a firewall that
        starts or stops judging at all, a rule list the compiled network does not know)."""
        if change.op == "set" and isinstance(change.obj, (Rule, DfwRule)):
            if change.field not in _RULE_FIELDS:
                self._network_rules_changed()
                return True
            owner = self._owner_of(change.obj)
            before = replace(change.obj, **{change.field: change.old})
            rules = [before, change.obj]
        elif change.op in ("insert", "remove") and change.field == "rules" and isinstance(change.owner, (Forwarding, Dfw)):
            owner = change.owner
            rules = [change.obj]
        else:
            return False
        if owner is None:
            return False
        vm = next((vm for vm in self.topology.vms if vm.forwarding is owner), None)
        if isinstance(owner, Forwarding) and (vm is None or vm.role is VmRole.VM):
            self._network_rules_changed()   # rules of a VM that does not forward judge nothing
            return True
        if not self._judging_unchanged(owner, vm):
            if not (isinstance(owner, Dfw) and owner.default_policy is Action.ALLOW):
                return False
            # a DFW that allows by default judges only what its rules name: its first rule (or the removal of
            # its last) changes the pairs that rule names, like any other rule edit
            self._network.dfw_active = bool(owner.rules)
            if self._matrix_walker is not None:
                self._matrix_walker.net.dfw_active = bool(owner.rules)
        self._network_rules_changed(vm)
        if self._builder is None:
            return True
        live = [r for r in rules if generic(r)]
        if live and self._relabelling is not None:
            relabelled = self._relabelling.relabelled_rules(live)
            if relabelled is None:
                self._drop_relabelling()
                return True
            live = relabelled
        if live:
            dfw = isinstance(owner, Dfw)
            self._affected |= self._builder.named(live, dfw=dfw)
            self._rules.setdefault("dfw" if dfw or vm is None else vm.id, []).extend(live)
            self._matrix = None
        return True

    def _owner_of(self, rule: Any) -> Forwarding | Dfw | None:
        if any(r is rule for r in self.topology.nsx.dfw.rules):
            return self.topology.nsx.dfw
        return next((vm.forwarding for vm in self.topology.vms if any(r is rule for r in vm.forwarding.rules)), None)

    def _judging_unchanged(self, owner: Forwarding | Dfw, vm: VM | None) -> bool:
        """Whether the firewall judges traffic exactly when it did before (the walks recorded who judges)."""
        judging = bool(owner.rules) or owner.default_policy is not Action.ALLOW
        net = self._network
        if isinstance(owner, Dfw):
            return judging == net.dfw_active
        device = net.device_by_id.get(vm.id) if vm is not None else None
        if device is not None:
            return judging == bool(device.rules or device.default_policy is not Action.ALLOW)
        return any(b.vm is vm for b in net.bridges)

    def _network_rules_changed(self, vm: VM | None = None) -> None:
        """Rules changed in place: the compiled network's copy of a firewall's list and the walker's compiled
        rule lists follow."""
        walkers = [self._walker]
        if self._matrix_walker is not None and self._matrix_walker is not self._walker:
            walkers.append(self._matrix_walker)     # the IPv6 matrix's, on the relabelled copy
        for walker in walkers:
            if vm is not None:
                for device in walker.net.devices:
                    if device.id == vm.id:
                        device.rules = list(walker.net.typed(vm.id, "vm").forwarding.rules)
            walker.rulebook.forget()


def predict(topology: Topology, src: str, dst: str, proto: str | None = None, port: int | None = None) -> Prediction:
    """One flow between two endpoints (VM or physical host, by id or name), both directions."""
    return Engine(topology).predict(src, dst, proto, port)
