"""The local lab backend: a design deployed as Linux network namespaces on this machine.

No hypervisor needed: every VM, router, firewall VM, physical switch and physical host becomes a network
namespace, every segment a Linux bridge, every vNIC a veth (see ``desired`` for the full mapping and the
reasons behind it). As root the namespaces are the host's (``ip netns list`` shows ``vnb<tag>-...``);
otherwise the lab lives in a private user namespace, so no sudo is needed (``context``).
"""

from .backend import LocalLabBackend

__all__ = ["LocalLabBackend"]
