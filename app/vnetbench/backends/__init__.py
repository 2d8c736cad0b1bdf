"""The backend plugin contract and plugin discovery."""

from .contract import (Backend, BackendError, Cancelled, CancelToken, Capabilities, ChangeResult,
                       DeployState, Deployment, Endpoint, ObjectState, Op, Plan, PlannedChange, ProgressFn,
                       RunningCommand, Unsupported)
from .discovery import PluginInfo, backend_class, discover

__all__ = ["Backend", "BackendError", "CancelToken", "Cancelled", "Capabilities", "ChangeResult",
           "DeployState", "Deployment", "Endpoint", "ObjectState", "Op", "Plan", "PlannedChange", "PluginInfo",
           "ProgressFn", "RunningCommand", "Unsupported", "backend_class", "discover"]
