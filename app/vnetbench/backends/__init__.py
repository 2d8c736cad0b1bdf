"""The backend plugin contract and plugin discovery."""

from .contract import (TRUST_SETTING, Backend, BackendError, BadSetting, Cancelled, CancelToken, Capabilities,
                       CertificateChanged, ChangeResult, DeployState, Deployment, Endpoint, MissingExtra, ObjectState,
                       Op, Plan, ProbeCapabilities,
                       PlannedChange, ProgressFn, RunningCommand, SettingField, SettingKind, UntrustedCertificate,
                       Unsupported)
from .discovery import PluginInfo, backend_class, discover

__all__ = ["TRUST_SETTING", "Backend", "BackendError", "BadSetting", "CancelToken", "Cancelled", "Capabilities",
           "CertificateChanged", "ChangeResult", "SettingField", "SettingKind", "UntrustedCertificate",
           "DeployState", "Deployment", "Endpoint", "MissingExtra", "ObjectState", "Op", "Plan", "PlannedChange", "PluginInfo", "ProbeCapabilities",
           "ProgressFn", "RunningCommand", "Unsupported", "backend_class", "discover"]
