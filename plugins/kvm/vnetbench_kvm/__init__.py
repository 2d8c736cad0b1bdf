"""The KVM backend: libvirt + QEMU guests on Linux bridges, Open vSwitch and macvtap."""

from .backend import KvmBackend

__all__ = ["KvmBackend"]
