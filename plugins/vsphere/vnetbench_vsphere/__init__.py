"""vSphere backend plugin for vnetbench: deploys designs to vCenter/ESXi through pyvmomi."""

from .backend import VSphereBackend

__all__ = ["VSphereBackend"]
