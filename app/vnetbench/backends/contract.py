"""The backend plugin contract: what every backend (local lab, vSphere, KVM, third-party) provides.

Deploying is plan, then apply. ``plan(design)`` compares the design with what the backend holds now and
returns an ordered list of readable changes; ``apply(plan)`` carries them out with progress, cancellation
and a result per change. Applying an unchanged design plans nothing. Every object a backend creates is
marked as managed by vnetbench (a name prefix, a custom attribute, a tag, metadata), and ``teardown`` removes
only marked objects. Measurements reach a deployed VM through ``endpoint(vm_id)``.

Connecting is generic too, so the GUI needs no knowledge of any plugin: a backend declares the settings it
needs (``settings_fields``), and a secret among them (a password) is typed by the user for one session or
kept in the OS keyring under ``keyring_service`` / ``secret_account(settings)``, never in a design file, the
GUI's settings or a log. A server whose certificate no authority vouches for raises ``UntrustedCertificate``
with its SHA-256 fingerprint; the user compares it and, only if they say yes, it is passed back as the
setting ``trust_fingerprint`` and pinned. A pinned certificate that changed raises ``CertificateChanged``,
which no setting overrides.

Backends never import the GUI or another plugin; they import this module and the model only.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from ..model import ForwardMode, SwitchKind, Topology, VmRole
from ..model.vlan import VlanMode
from . import sockperf_inet6


class BackendError(Exception):
    """A backend failure to show the user as is: ``message`` names what failed, ``hint`` what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        self.message, self.hint = message, hint
        super().__init__(f"{message} ({hint})" if hint else message)


class BadSetting(BackendError):
    """A setting or a local file it names is unusable (an address, a pin file): bad input, not a server failure."""


class MissingExtra(BackendError):
    """An optional SDK the backend needs (``module``) is not installed; the message is the pip command that
    installs it (``vnetbench.extras``). Bad set-up, not a server failure: the CLI exits 2."""

    def __init__(self, module: str) -> None:
        from ..extras import install_hint

        super().__init__(install_hint(module) or f"the Python module {module} is not installed")


class Unsupported(BackendError):
    """The design asks for something this backend cannot build; raised by ``plan`` before anything changes."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("this backend cannot build the design: " + "; ".join(reasons),
                         "change those objects or choose another backend")


class UntrustedCertificate(BackendError):
    """The server's certificate is signed by no trusted authority and not pinned yet.

    ``fingerprint`` (SHA-256, ``AB:CD:..``) is what the user must compare with the one the server shows;
    connecting again with the setting ``trust_fingerprint`` set to it trusts and pins it.
    """

    def __init__(self, server: str, fingerprint: str, hint: str = "") -> None:
        self.server, self.fingerprint = server, fingerprint
        super().__init__(f"the certificate of {server} is not signed by a trusted authority; "
                         f"its SHA-256 fingerprint is {fingerprint}",
                         hint or "compare it with the one the server shows, then trust it "
                                 "(--trust-fingerprint FINGERPRINT on the command line)")


class CertificateChanged(BackendError):
    """The server's certificate differs from the one pinned: refused, since someone may be listening in."""

    def __init__(self, server: str, pinned: str, current: str, hint: str) -> None:
        self.server, self.pinned, self.current = server, pinned, current
        now = f", now {current}" if current else ""
        super().__init__(f"WARNING: the certificate of {server} changed since you trusted it (pinned {pinned}{now}); "
                         "someone may be intercepting the connection", hint)


class Cancelled(BackendError):
    """The user cancelled a long backend call; what ran so far is reported, not undone."""

    def __init__(self) -> None:
        super().__init__("cancelled by the user")


@dataclass(frozen=True)
class Capabilities:
    """What a backend can build; ``Backend.unsupported`` refuses a design that needs more, before any change.

    ``physical_network`` only informs: a backend without it (vSphere) builds the virtual side and leaves the
    physical switches and routers of the design to the admin. ``import_inventory``, ``measure`` and
    ``needs_credentials`` tell the GUI which actions to offer.
    """

    switch_kinds: frozenset[SwitchKind]
    vlan_trunks: bool = True
    firewalls: bool = True
    bridged_firewalls: bool = True
    nsx: bool = False
    physical_network: bool = True
    import_inventory: bool = False
    measure: bool = True
    needs_credentials: bool = False


@dataclass(frozen=True)
class ProbeCapabilities:
    """What ``vnetbench verify`` can observe through a backend, declared so it can say what it did not check.

    ``reachability`` and ``mtu`` need endpoints that run ``ping``; ``ports`` a TCP/UDP probe there too;
    ``counters`` means ``Backend.pnic_counters`` reads the bytes each design pNIC carried, which is what proves
    a path in-host or via-physical. ``limits`` says, in the admin's words, what this backend cannot observe.
    """

    reachability: bool = True
    mtu: bool = True
    ports: bool = True
    counters: bool = False
    limits: str = "this backend reads no pNIC counters, so observed paths are not checked"


TRUST_SETTING = "trust_fingerprint"
"""The setting that trusts a certificate: the fingerprint of an ``UntrustedCertificate`` the user accepted."""


class SettingKind(StrEnum):
    """What a setting holds, so a connect dialog shows the right field (a secret is never saved)."""

    TEXT = "text"
    URL = "url"
    USER = "user"
    SECRET = "secret"  # typed for one session or kept in the OS keyring; never saved elsewhere
    BOOL = "bool"


@dataclass(frozen=True)
class SettingField:
    """One setting a backend needs to connect, so a GUI can ask for it without knowing the backend."""

    name: str
    label: str
    kind: SettingKind = SettingKind.TEXT
    default: str | bool = ""
    help: str = ""
    required: bool = False


class Op(StrEnum):
    """What a planned change does to a backend object."""

    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True)
class PlannedChange:
    """One step of a plan.

    ``key`` is the backend's name for the object (``vnb-1a2b-br3``, a MoRef name); ``object_id`` the design
    object it comes from, so the canvas can mark it; ``description`` is what the user reads in the plan;
    ``data`` is the backend's own payload for ``apply`` (never secrets). ``connectivity``, when set, says how
    the change may cut a host off its network (a VLAN, uplinks, MTU): the plan shows it, and the backend sends
    it only when the setting ``CONFIRM_CONNECTIVITY`` says the user confirmed such changes separately.
    """

    op: Op
    kind: str
    key: str
    description: str
    object_id: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    connectivity: str = ""

    def __str__(self) -> str:
        mark = f"  [affects host connectivity: {self.connectivity}]" if self.connectivity else ""
        return f"{self.op.value:6} {self.kind:12} {self.description}{mark}"


CONFIRM_CONNECTIVITY = "confirm_connectivity"
"""The setting that lets ``apply`` send changes marked ``connectivity``: true only after the user confirmed them
on their own (``deploy --confirm-connectivity``, a yes at the terminal or in the GUI)."""


@dataclass(frozen=True)
class Plan:
    """The changes one apply would make, computed from the design and what the backend holds now."""

    backend: str
    design_id: str
    changes: tuple[PlannedChange, ...]

    @property
    def empty(self) -> bool:
        """Nothing to change: the backend already matches the design."""
        return not self.changes


class DeployState(StrEnum):
    """How far a design object is deployed on a backend, for the deploy panel and ``lab status``."""

    DEPLOYED = "deployed"
    PENDING = "pending"
    FAILED = "failed"
    ABSENT = "absent"


@dataclass(frozen=True)
class ChangeResult:
    """How one change ended. ``lost``: the backend could not be reached (or could no longer be trusted) before
    the change ended, so it was not sent or its outcome is unknown; applying again settles it. ``left_alone``:
    a teardown did not touch it on purpose, since nothing proves vnetbench made it (``error`` says why); that
    is the right outcome, not a failure, so a script's teardown step does not fail on someone else's object.
    ``cancelled``: the user cancelled before it was sent, so the backend never saw it."""

    change: PlannedChange
    ok: bool
    error: str | None = None
    lost: bool = False
    left_alone: bool = False
    cancelled: bool = False

    @property
    def failed(self) -> bool:
        """The change went wrong (one left alone on purpose is no failure)."""
        return not self.ok and not self.left_alone


@dataclass(frozen=True)
class ObjectState:
    """What the backend holds for one design object (for the canvas: deployed, pending or failed, and why)."""

    state: DeployState
    reason: str = ""


ProgressFn = Callable[[int, int, str], None]
"""``progress(done, total, message)``; called from the worker thread that runs the long operation."""


class CancelToken:
    """Set from any thread; checked by backends between changes."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the running call to stop at its next check (thread-safe)."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether a stop was asked for."""
        return self._event.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` if a stop was asked for; long calls run it between steps."""
        if self._event.is_set():
            raise Cancelled()


class RunningCommand(ABC):
    """A probe command started in an endpoint; its output arrives line by line while it runs."""

    argv: list[str]

    @abstractmethod
    def lines(self) -> Iterator[str]:
        """stdout lines as they are printed (ends when the command ends)."""

    @abstractmethod
    def wait(self, timeout: float | None = None) -> int:
        """Exit status; ``TimeoutError`` if it is still running after ``timeout`` seconds."""

    @abstractmethod
    def stderr(self) -> str:
        """What the command wrote to stderr (after it ended)."""

    @abstractmethod
    def terminate(self) -> None:
        """Stop the command (and only it)."""

    def send(self, text: str) -> None:
        """Write ``text`` to the command's stdin (one started by ``Endpoint.start_session``)."""
        raise BackendError(f"{self.argv[0]} takes no input", "start it with Endpoint.start_session")

    def close_input(self) -> None:
        """Close the command's stdin, so a helper reading it ends."""


class Endpoint(ABC):
    """A deployed VM (or physical host) that can run probe programs, by whatever means the backend has."""

    name: str

    @abstractmethod
    def address(self, vnic_id: str | None = None) -> str:
        """The IPv4 address to reach this endpoint at (of ``vnic_id``, or its first addressed vNIC)."""

    def address_in(self, family: int, vnic_id: str | None = None) -> str:
        """The address of ``family`` (4 or 6) to reach this endpoint at; a backend that reaches its endpoints
        over IPv6 too says so by overriding this."""
        if family == 4:
            return self.address(vnic_id)
        raise BackendError(f"{self.name} is reached over IPv4 only by this backend", "measure with family 4")

    @abstractmethod
    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        """Start ``argv`` inside the endpoint, pinned to ``cpu`` when given (latency tests pin both ends)."""

    def start_session(self, argv: list[str]) -> RunningCommand:
        """Start ``argv`` inside the endpoint with its stdin open to ``RunningCommand.send``: a helper that
        lives as long as a verification (verify's prober); a backend that cannot keep one says so."""
        raise BackendError(f"{self.name} cannot keep a helper running", "probes run one command each there")

    @abstractmethod
    def has_program(self, program: str) -> bool:
        """Whether ``program`` can run there (so a missing iperf3 is reported, not plotted as nothing)."""

    def sockperf_inet6(self) -> str:
        """Where this endpoint loads vnetbench's IPv6 shim for sockperf 3.7 from (``LD_PRELOAD``): by default the
        file built on this machine (``ShimUnavailable`` if it cannot be), which an endpoint that shares this
        machine's files sees (a lab namespace); one that runs probes elsewhere and carries its own copy (a probe
        guest) names that copy."""
        return str(sockperf_inet6.build())


@dataclass(frozen=True)
class Deployment:
    """A design the backend holds objects for, found without the design file (for listings)."""

    design_id: str
    name: str
    objects: int
    detail: str = ""


class Backend(ABC):
    """A deployment target. One instance holds one connection; long calls run off the GUI thread."""

    name: ClassVar[str]
    title: ClassVar[str]
    capabilities: ClassVar[Capabilities]
    probe_capabilities: ClassVar[ProbeCapabilities] = ProbeCapabilities()
    #: What the user gives to connect (none for the local lab); settings outside it go in as given.
    settings_fields: ClassVar[tuple[SettingField, ...]] = ()
    #: The OS keyring service that holds this backend's secrets (``keyring set SERVICE ACCOUNT``).
    keyring_service: ClassVar[str] = ""

    @classmethod
    def secret_account(cls, settings: Mapping[str, Any]) -> str:
        """The keyring account a secret for these settings is kept under (``BackendError`` if they are bad)."""
        return f"{settings.get('user', '')}@{settings.get('url', '')}"

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        self.settings: dict[str, Any] = dict(settings or {})

    def deployment(self, design_id: str) -> str:
        """What names one deployment of ``design_id`` here: this backend and the server it talks to. The
        measure lock is keyed by it, so two labs of one design (two servers, two lab folders) are measured
        at once, and two measurements of one lab never are. Known without connecting."""
        url = next((str(self.settings.get(f.name) or "") for f in self.settings_fields
                    if f.kind is SettingKind.URL), "")
        return f"{self.name} {url} {design_id}"

    def connect(self) -> None:
        """Open the connection; the local lab needs none.

        A ``SettingKind.SECRET`` setting is taken from ``settings`` when the user typed it for this session,
        else from the OS keyring. May raise ``UntrustedCertificate`` or ``CertificateChanged``."""

    def close(self) -> None:
        """Release the connection."""

    def unsupported(self, design: Topology) -> list[str]:
        """Reasons this backend cannot build ``design`` (empty when it can). ``plan`` raises on any."""
        can = self.capabilities
        reasons = []
        for sw in design.switches:
            if sw.kind not in can.switch_kinds:
                reasons.append(f"switch {sw.name!r} is a {sw.kind.value}, which {self.title} cannot build")
            for pg in sw.portgroups:
                if not can.vlan_trunks and pg.vlan.mode is VlanMode.TRUNK:
                    reasons.append(f"portgroup {pg.name!r} is a VLAN trunk, which {self.title} cannot build")
        for vm in design.vms:
            if vm.role is VmRole.VM:
                continue
            if not can.firewalls:
                reasons.append(f"{vm.name!r} is a {vm.role.value} VM, and {self.title} cannot deploy forwarding VMs")
            elif vm.forwarding.mode is ForwardMode.BRIDGED and not can.bridged_firewalls:
                reasons.append(f"{vm.name!r} is a bridged firewall, which {self.title} cannot build")
        if not can.nsx and (design.nsx.dlrs or design.nsx.dfw.rules):
            reasons.append(f"the design uses NSX (logical routers or distributed firewall rules), which "
                           f"{self.title} cannot build")
        return reasons

    @abstractmethod
    def plan(self, design: Topology) -> Plan:
        """Changes that make the backend match ``design``; raises ``Unsupported`` before touching anything."""

    @abstractmethod
    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        """Carry out ``plan`` in order; a failed change is reported in its result, and later ones go on
        where they do not depend on it. Cancellation stops between changes."""

    @abstractmethod
    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        """Remove what vnetbench created (for one design, or all) and nothing else."""

    @abstractmethod
    def status(self, design: Topology) -> dict[str, ObjectState]:
        """State of each design object in the backend, by object id."""

    def import_design(self, progress: ProgressFn | None = None) -> Topology:
        """Read what exists into a design (backends with ``import_inventory``)."""
        raise BackendError(f"{self.title} cannot import an inventory", "choose a backend that can")

    def deployments(self) -> list[Deployment]:
        """The designs deployed on this backend (``vnetbench lab status`` without a file lists them)."""
        raise BackendError(f"{self.title} cannot list its deployments", "name the design file")

    @abstractmethod
    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        """Where probes for ``vm_id`` run; ``BackendError`` if it is not deployed."""

    # --- verify (``vnetbench verify``): what this backend lets a verification observe ---------------------

    def pnic_counters(self, design: Topology) -> dict[str, int]:
        """Bytes each of the design's pNICs has carried so far (both directions summed), by pNIC id: read before
        and after a burst, they show which pNICs the burst crossed. Backends with ``counters`` only."""
        raise BackendError(f"{self.title} cannot read pNIC counters", "verify checks reachability and MTU only")

    def neighbour_room(self, design: Topology) -> int | None:
        """How many neighbour (ARP) entries the design's endpoints may hold at once, where they share one table
        with a bound (the lab's namespaces share the host kernel's); None where each endpoint has its own."""
        return None

    def forget_neighbours(self, design: Topology) -> None:
        """Drop the neighbour entries the design's endpoints learned (not static ones), so a verification that
        ``neighbour_room`` bounds can go on with the next pairs. Only backends that give a ``neighbour_room``."""
