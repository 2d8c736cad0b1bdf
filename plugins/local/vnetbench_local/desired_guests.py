"""The guests of the lab: each VM, router VM and firewall VM as a namespace, its vNICs as veths into their
segments' bridges, a firewall VM's rules as an nftables table, and the passthrough adapters the lab refuses."""

from __future__ import annotations

from vnetbench.backends import nftables as nft
from vnetbench.backends.planning import Want
from vnetbench.model import VM, Action, ForwardMode, MacvtapMode, SwitchKind, VmRole
from vnetbench.model.forwarding import PER_GUEST, guests_meet_inside, reflection_reaches_guests
from vnetbench.model.families import FAMILIES, family, gateway_of

from .desired_base import BuilderBase, EndpointInfo, default_route, static_routes, veth_end
from .names import guest_ifname, ifname, mac_for


class GuestParts(BuilderBase):
    """VMs, router VMs and firewall VMs, and the adapters the lab refuses."""

    def vm(self, vm: VM) -> None:
        if not vm.host or self.ix.kind(vm.host) != "host":
            self.reasons.append(f"VM {vm.name} is on no host (set its host)")
            return
        fw = vm.forwarding
        forwards = vm.role is not VmRole.VM
        bridged = forwards and fw.mode is ForwardMode.BRIDGED
        ns = self.netns("v", vm.id, f"VM {vm.name}", forward=forwards and not bridged)
        addresses: dict[str, str] = {}
        addresses6: dict[str, str] = {}
        taken: set[str] = set()
        blocked_by_policy = False
        bridge_addrs: list[str] = []
        inside_names: dict[str, str] = {}
        defaults: dict[int, list[list[str]]] = {}        # family -> the default route of its first gateway
        for i, nic in enumerate(vm.vnics):
            seg, why = self.segment(vm, nic)
            if why:
                self.reasons.append(why)
            addrs = self._addrs(nic, f"vNIC {vm.name}/{nic.name} ip")
            if forwards and not bridged:
                addrs = self.forwarding_addrs(addrs, nic.id)
            addr = next((a for a in addrs if family(a) == 4), None)      # endpoints are reached at IPv4
            if addr:
                addresses[nic.id] = addr
            if (addr6 := self.global6(addrs)) is not None:
                addresses6[nic.id] = addr6
            name = guest_ifname(nic.name, i, taken)
            taken.add(name)
            inside_names[nic.id] = name
            if bridged:
                blocked_by_policy |= bool(seg and self.fabric.bridging_problems(vm, nic))
                bridge_addrs += addrs
            mac = nic.mac or mac_for(self.tag, nic.id)
            isolated = False
            if seg and seg.switch is not None and seg.switch.kind in PER_GUEST:
                isolated = not guests_meet_inside(seg.switch)
                if not reflection_reaches_guests(seg.switch):
                    pnic = self.fabric.uplinks_of(seg.switch, vm.host, None)[0].pnic
                    self.private_macs.setdefault(pnic, []).append(mac.lower())
            a = veth_end(ns, name, "fw0" if bridged else None, mac=mac, up=nic.connected,
                     addrs=() if bridged else tuple(addrs))
            b = veth_end(seg.ns if seg else self.hv(vm.host), ifname("n", nic.id),
                     seg.bridge if seg and nic.connected else None, isolated=isolated, learning=not isolated)
            self.veth(a, b, f"{vm.name} {nic.name}", vm.id, min(nic.mtu, seg.mtu) if seg else nic.mtu)
            if seg and nic.connected:
                self.vm_ports.append((seg.ns, b["name"], vm, nic))
            for fam in FAMILIES:
                own, gateway = next((a for a in addrs if family(a) == fam), None), gateway_of(nic, fam)
                if seg and own and gateway and fam not in defaults:
                    defaults[fam] = default_route(own, gateway, name)
        if defaults:
            self.routes[ns] = [r for fam in FAMILIES for r in defaults.get(fam, [])]
        if forwards and not bridged and fw.routes:
            devs = {n.name: inside_names[n.id] for n in vm.vnics} | {n.id: inside_names[n.id] for n in vm.vnics}
            self.routes[ns] = static_routes(fw.routes, self.routes.get(ns, []), devs)
        if bridged:
            self.bridge(ns, "fw0", f"bridged firewall {vm.name}", vm.id, addrs=tuple(bridge_addrs))
        self.endpoints[vm.id] = EndpointInfo(ns, addresses, addresses6)
        if forwards:
            self.firewall(vm, ns, bridged, blocked_by_policy)
        nat = nft.vm_nat_ruleset(vm, inside_names)
        if nat is not None:
            self._add(Want("nft", f"nft/{ns}/ip", {"ns": ns, "family": "ip", "text": nat},
                           f"NAT of {vm.name}", vm.id, (f"netns/{ns}",)))

    def check_passthrough(self) -> None:
        for sw in self.d.switches:
            if sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.PASSTHROUGH:
                users = {v.id for v in self.d.vms for n in v.vnics if n.network == sw.id}
                if len(users) > 1:
                    self.reasons.append(f"macvtap {sw.name} is in passthrough mode (one VM owns the pNIC) "
                                        f"but {len(users)} VMs use it")

    def firewall(self, vm: VM, ns: str, bridged: bool, blocked_by_policy: bool) -> None:
        fw = vm.forwarding
        try:
            if bridged:
                text = nft.bridged_ruleset(fw, self.address_of, vm.name, blocked_by_policy)
                family = "bridge"
            elif fw.rules or fw.default_policy is not Action.ALLOW:
                text, family = nft.routed_ruleset(fw, self.address_of, vm.name), "inet"
            else:
                return
        except nft.RuleError as exc:
            self.reasons.append(str(exc))
            return
        self._add(Want("nft", f"nft/{ns}/{family}", {"ns": ns, "family": family, "text": text},
                           f"{'bridge' if bridged else 'forward'} filter of {vm.name} "
                           f"({len(fw.rules)} rules, default {fw.default_policy.value})", vm.id,
                           (f"netns/{ns}",)))
