"""Validation: what is wrong with a design, said so a person can fix it.

``validate(topology)`` returns ``Problem`` records (errors first). Each names the place in the file
(``vms[2].vnics[0].ip``), the object's id (the canvas selects it), a plain sentence and the fix. Errors are
designs the real platforms refuse or that make prediction meaningless; warnings are designs that work but
probably not as intended (a bridged firewall without promiscuous mode drops traffic).
"""


from __future__ import annotations

from .checks.base import CheckerBase
from .checks.dnat import DnatChecks
from .checks.families import FamilyChecks
from .checks.layout import LayoutChecks
from .checks.names import NameChecks
from .checks.nat import NatChecks
from .checks.nsxt import NsxtChecks
from .checks.physical import PhysicalChecks
from .checks.routes import RouteChecks
from .checks.segments import SegmentChecks
from .checks.switches import SwitchChecks
from .checks.teaming import TeamingChecks
from .checks.vms import VmChecks
from .objects import Topology
from .problems import ERROR, WARNING, Problem, run_alone

__all__ = ["ERROR", "WARNING", "Problem", "drawing_errors", "reference_errors", "run_alone", "validate"]


def validate(topology: Topology, structure: list[Problem] | None = None) -> list[Problem]:
    """Every problem of ``topology``, errors first, then in file order; the errors of structure (see
    ``reference_errors``) are also added to ``structure`` when given."""
    checker = _Checker(topology)
    problems = checker.run()
    if structure is not None:
        structure.extend(checker.structure)
    return sorted(problems, key=lambda p: p.severity != ERROR)


def reference_errors(topology: Topology) -> list[Problem]:
    """The errors of structure: an id used twice, a reference to nothing or to the wrong kind of object.
    A backend refuses to build such a design (it would follow the reference and fail halfway)."""
    checker = _Checker(topology)
    checker.run()
    return checker.structure


def drawing_errors(topology: Topology) -> list[Problem]:
    """The errors no drawing survives: an id used twice (a box would contain itself), a reference to the
    wrong kind of object (a router "on" a cable), names beyond the limit, coordinates or sizes off the
    canvas. Exports refuse a design that has any."""
    checker = _Checker(topology)
    checker.run()
    return checker.undrawable


#: every check of every part, run in order by ``run`` (one failing check is reported, the others still run)
class _Checker(NameChecks, SwitchChecks, VmChecks, PhysicalChecks, RouteChecks, SegmentChecks, LayoutChecks,
               TeamingChecks, NsxtChecks, NatChecks, DnatChecks, FamilyChecks, CheckerBase):
    def run(self) -> list[Problem]:
        for check in (self.check_ids, self.check_lengths, self.check_names, self.check_hosts, self.check_switches,
                      self.check_vms, self.check_physical, self.check_links, self.check_nsx,
                      self.check_gateways_tiers, self.check_teps, self.check_snat, self.check_dnat,
                      self.check_port_forwards, self.check_segments, self.check_gateways, self.check_layout,
                      self.check_routes, self.check_teaming, self.check_families):
            run_alone(check, self.problems)
        return self.problems
