"""Benchmark of edits in a teamed design: a VLAN edit on a switch without teaming, and the matrix after it,
when every host's vSwitch0 teams two active uplinks (route based on originating port ID); prints wall and CPU
milliseconds, asserts nothing.

    .venv/bin/python tests/bench/bench_teamed_edits.py [VMS HOSTS]

Before ``Network.refresh`` took such edits incrementally, every move in a teamed design recompiled the network
and the whole matrix.
"""

from __future__ import annotations

import copy
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from vnetbench.model import Document  # noqa: E402
from vnetbench.model.objects import Link, LoadBalancing, PNic, SwitchKind, Teaming, Topology, Uplink  # noqa: E402
from vnetbench.predict import Engine  # noqa: E402


def teamed(vms: int, hosts: int) -> Topology:
    """``generate``'s design with a second active uplink (vmnic3, on a port like vmnic0's) on every vSwitch0."""
    t = generate(vms, hosts, 1)
    ports = {p.id: (ps, p) for ps in t.physical_switches for p in ps.ports}
    for host in t.hosts:
        sw0 = next(sw for sw in t.switches if sw.host == host.id and sw.name == "vSwitch0")
        host.pnics.append(PNic(f"{host.id}.vmnic3", "vmnic3"))
        link = next(link for link in t.links if link.a == f"{host.id}.vmnic0")
        ps, port = ports[link.b]
        twin = copy.deepcopy(port)
        twin.id, twin.name = port.id + "b", port.name + "b"
        ps.ports.append(twin)
        t.links.append(Link(f"{link.id}b", f"{host.id}.vmnic3", twin.id))
        sw0.uplinks.append(Uplink(f"{host.id}.vmnic3"))
        sw0.teaming = Teaming(LoadBalancing.PORT_ID)
    return t


def main() -> int:
    vms, hosts = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (2000, 100)
    t = teamed(vms, hosts)
    doc, engine = Document(t), Engine(t)
    doc.subscribe(engine.changed)
    engine.matrix()
    on = {vm_nic.network for vm in t.vms for vm_nic in vm.vnics}
    pgs = [pg for sw in t.switches if sw.teaming is None and sw.kind is SwitchKind.VSS for pg in sw.portgroups
           if pg.id in on]
    rnd = random.Random(1)
    runs = []
    for i in range(9):
        pg = rnd.choice(pgs)
        wall, cpu = time.perf_counter(), time.process_time()
        doc.set(pg, "vlan", 300 + i)
        engine.matrix()
        runs.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    runs.sort(key=lambda r: r[1])
    median, worst = runs[len(runs) // 2], runs[-1]
    print(f"{vms} VMs on {hosts} teamed hosts: VLAN edit + matrix, median {median[0]:.0f} ms wall "
          f"({median[1]:.0f} ms CPU), worst {worst[0]:.0f} ms wall ({worst[1]:.0f} ms CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
