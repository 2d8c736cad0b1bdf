"""Wait for many vSphere tasks at once.

Submitting every task of a stage first and then waiting lets vCenter work on them in parallel (0.3 s
against 5.8 s for 100 VMs created one by one). Waiting uses a PropertyCollector of its own, so its filter
and update version never mix with the session's main collector that plan and import use.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pyVmomi import vim, vmodl
from vnetbench.backends.contract import CancelToken

log = logging.getLogger("vnetbench.vsphere")
PC = vmodl.query.PropertyCollector

#: (task, error or None, result) -> called once per task as it ends.
DoneFn = Callable[[Any, Any, Any], None]


def fault_text(fault: Any) -> str:
    """The server's reason in one line: ``DuplicateName: The name 'web' already exists. (name 'web')``."""
    kind = type(fault).__name__.rsplit(".", 1)[-1]
    msg = (getattr(fault, "msg", None) or getattr(fault, "localizedMessage", None) or "").strip()
    if msg.startswith("*types."):  # vcsim puts its Go type name here
        msg = ""
    details = [f"{attr} {getattr(fault, attr)!r}" for attr in ("name", "invalidProperty", "property")
               if getattr(fault, attr, None)]
    text = f"{kind}: {msg}" if msg else kind
    return f"{text} ({', '.join(details)})" if details else text


class TaskWaiter:
    """A private PropertyCollector that reports task ends as ``WaitForUpdatesEx`` delivers them."""

    def __init__(self, content: Any) -> None:
        self.pc = content.propertyCollector.CreatePropertyCollector()

    def wait(self, tasks: list[Any], done: DoneFn, cancel: CancelToken | None = None,
             poll_seconds: int = 1) -> None:
        """Block until every task in ``tasks`` ended. A cancel request lets running tasks finish
        (they are already on the server) but is noticed within ``poll_seconds``."""
        if not tasks:
            return
        spec = PC.FilterSpec(objectSet=[PC.ObjectSpec(obj=t, skip=False) for t in tasks],
                             propSet=[PC.PropertySpec(type=vim.Task, pathSet=["info.state", "info.error",
                                                                              "info.result"])])
        flt = self.pc.CreateFilter(spec, partialUpdates=False)
        seen: dict[str, dict[str, Any]] = {t._moId: {} for t in tasks}
        by_id = {t._moId: t for t in tasks}
        version = ""
        try:
            while seen:
                update = self.pc.WaitForUpdatesEx(version, PC.WaitOptions(maxWaitSeconds=poll_seconds))
                if update is None:
                    if cancel is not None and cancel.cancelled:
                        log.info("cancel requested: waiting for %d running tasks to end", len(seen))
                    continue
                version = update.version
                for fs in update.filterSet or []:
                    for oc in fs.objectSet or []:
                        moid = oc.obj._moId
                        if moid not in seen:
                            continue
                        for change in oc.changeSet or []:
                            seen[moid][change.name] = change.val
                        state = seen[moid].get("info.state")
                        if state in (vim.TaskInfo.State.success, vim.TaskInfo.State.error):
                            values = seen.pop(moid)
                            error = values.get("info.error") if state == vim.TaskInfo.State.error else None
                            done(by_id[moid], error, values.get("info.result"))
        finally:
            flt.DestroyPropertyFilter()

    def close(self) -> None:
        try:
            self.pc.DestroyPropertyCollector()
        except Exception:  # noqa: BLE001 - the session may be gone already
            log.debug("could not destroy the task collector", exc_info=True)
