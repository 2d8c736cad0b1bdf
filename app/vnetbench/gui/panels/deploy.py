"""The deploy panel: choose a backend, read the plan, apply it or tear it down, off the GUI thread.

Backends come from ``vnetbench.backends.discover()`` (the local lab first and preselected); a plugin that
failed to load stays in the list, greyed, with its error as the tooltip. Planning, applying and tearing
down run as ``worker.Task``s with a progress bar and a Cancel button. Afterwards the state of each design
object goes to the canvas through ``workbench.deployStateChanged``. Failures are shown as the backend's
message and hint, never as a traceback. A backend that declares ``settings_fields`` (a server, a user, a
password) is connected through ``connect.ConnectDialog`` before its first operation; the free-text line
then carries only further settings (``datastore=...``), never a password.

Tearing down on any backend (the local lab, vSphere, KVM...) first lists what the backend holds for the
design and asks, naming what will be deleted. Opening another design clears the plan and the
canvas badges: the list always belongs to the design in view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMessageBox,
                               QProgressBar, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ...backends import (Backend, BackendError, CancelToken, Cancelled, ChangeResult, DeployState,
                         ObjectState, Op, Plan, PlannedChange, PluginInfo, ProgressFn, discover)
from ...backends.contract import CONFIRM_CONNECTIVITY
from ...model import Change, Index, Topology
from ..colors import DEPLOY_COLORS, DEPLOY_SYMBOLS
from ..connect import ConnectDialog, describe_error, describe_target
from ..family_box import FamilyBox, follow_later
from ..plain import plain, tip as plain_tip
from ..workbench import Workbench
from .verify import VerifyRunner, failure_text
from ..worker import Task

OP_SYMBOLS = {Op.CREATE: "+", Op.UPDATE: "~", Op.DELETE: "−"}
#: How a kind of object is named when a teardown lists what it deletes (singular, plural).
KIND_NAMES = {"vm": ("VM", "VMs"), "switch": ("virtual switch", "virtual switches"),
              "portgroup": ("portgroup", "portgroups"), "host": ("host", "hosts"),
              "physical_switch": ("physical switch", "physical switches"),
              "physical_router": ("router", "routers"), "physical_host": ("physical host", "physical hosts"),
              "dlr": ("logical router", "logical routers")}
OP_COLORS = {Op.CREATE: "#009E73", Op.UPDATE: "#0072B2", Op.DELETE: "#D55E00"}


def parse_settings(text: str) -> dict[str, str]:
    """``url=https://vc/sdk, user=admin`` -> a backend's settings; a malformed item is a ``BackendError``."""
    settings: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BackendError(f"the setting {item!r} is not key=value",
                               "write settings like url=https://vcenter.example/sdk, user=admin")
        settings[key.strip()] = value.strip()
    return settings


def connectivity_question(risky: list[PlannedChange]) -> str:
    """The separate confirmation of changes that may cut a host off its network."""
    listed = "\n  • ".join(f"{c.description}: {c.connectivity}" for c in risky[:12])
    more = f"\n  • … and {len(risky) - 12} more" if len(risky) > 12 else ""
    return (f"{len(risky)} of the changes affect host connectivity:\n  • {listed}{more}\n\nA wrong VLAN, uplink "
            "or MTU can cut a host off its management network. Apply them?")


def states_after(backend: Backend, design: Topology, results: list[ChangeResult]) -> dict[str, ObjectState]:
    """Per-object state after an apply or teardown: what the backend reports, with each failure's reason."""
    try:
        states = dict(backend.status(design))
    except BackendError:  # the backend cannot tell: go by what the changes did
        done = {Op.CREATE: DeployState.DEPLOYED, Op.UPDATE: DeployState.DEPLOYED, Op.DELETE: DeployState.ABSENT}
        states = {r.change.object_id: ObjectState(done[r.change.op]) for r in results if r.change.object_id}
    for result in results:
        if result.failed and result.change.object_id:
            states[result.change.object_id] = ObjectState(DeployState.FAILED, result.error or "failed")
    return states


def deployed_objects(index: Index, states: dict[str, ObjectState]) -> list[str]:
    """``5 VMs (web01, web02, app01, db01, bak01)``: what the backend holds for the design, by kind."""
    by_kind: dict[str, list[str]] = {}
    for object_id, state in states.items():
        if state.state == DeployState.DEPLOYED and object_id in index:
            obj = index.get(object_id)
            by_kind.setdefault(index.kind(object_id) or "", []).append(getattr(obj, "name", object_id))
    lines = []
    for kind, names in by_kind.items():
        one, many = KIND_NAMES.get(kind, (kind.replace("_", " "), kind.replace("_", " ") + "s"))
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        lines.append(f"{len(names)} {one if len(names) == 1 else many} ({shown})")
    return lines


@dataclass(frozen=True)
class Outcome:
    """What an apply or a teardown did; ``cancelled`` when the user stopped it part way."""

    plan: Plan | None
    results: list[ChangeResult]
    states: dict[str, ObjectState]
    cancelled: bool


def carry_out(backend: Backend, design: Topology, step: Callable[[], list[ChangeResult]],
              cancel: CancelToken, plan: Plan | None = None) -> Outcome:
    """Run ``step`` (an apply or a teardown); a cancel still reports what the backend holds afterwards."""
    try:
        results = step()
    except Cancelled:
        results = []
    return Outcome(plan, results, states_after(backend, design, results), cancel.cancelled)


class DeployDock(QDockWidget):
    def __init__(self, workbench: Workbench, parent: QWidget | None = None,
                 plugins: list[PluginInfo] | None = None) -> None:
        super().__init__("Deploy", parent)
        self.setObjectName("DeployDock")
        self.workbench = workbench
        self.plugins = discover() if plugins is None else list(plugins)
        self.plan: Plan | None = None
        self.results: list[ChangeResult] = []
        self.states: dict[str, ObjectState] = {}
        self.task: Task | None = None
        self._backend: Backend | None = None
        self._plan_revision = -1
        self._next: Callable[[], None] | None = None  # what runs once the current task has finished

        self.backend_box = QComboBox()
        self.connect_dialog: ConnectDialog | None = None
        self.connection = QLabel("not connected")
        self.connect_button = QPushButton("Connect…")
        self.connect_button.setToolTip("Choose the server and sign in")
        self.connection_row = QWidget()
        row = QHBoxLayout(self.connection_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.connection, 1)
        row.addWidget(self.connect_button)
        self.settings_label = QLabel("Settings")
        self.settings = QLineEdit()
        self.settings.setClearButtonEnabled(True)
        self.plan_button = QPushButton("Plan")
        self.plan_button.setToolTip("Show what applying would change, without changing anything")
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Make the backend match the design")
        self.teardown_button = QPushButton("Tear down")
        self.teardown_button.setToolTip("Remove everything vnetbench created for this design")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.verify_button = QPushButton("Verify")
        self.verify_button.setToolTip("Probe the deployed design pair by pair against its prediction "
                                      "(the matrix dock colours the result)")
        self.verify_family = FamilyBox("The address family Verify probes over (the design uses both): ping -6 "
                                       "and TCP over IPv6 against the IPv6 prediction")
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.message = plain(QLabel("Choose a backend, then Plan."))
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes = QTreeWidget()
        self.changes.setHeaderLabels(["Op", "Kind", "Change", "Result"])
        self.changes.setRootIsDecorated(False)
        self.changes.setUniformRowHeights(True)

        top = self.form = QFormLayout()
        top.addRow("Backend", self.backend_box)
        top.addRow("Connection", self.connection_row)
        top.addRow(self.settings_label, self.settings)
        buttons = QHBoxLayout()
        for button in (self.plan_button, self.apply_button, self.teardown_button, self.verify_button,
                       self.verify_family, self.cancel_button):
            buttons.addWidget(button)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addWidget(self.changes, 1)
        self.setWidget(body)

        self._fill_backends()
        self.backend_box.currentIndexChanged.connect(self._backend_chosen)
        self.settings.textChanged.connect(lambda _text: self._close_backend())
        self.connect_button.clicked.connect(lambda: self.ask_connect(None))
        self.plan_button.clicked.connect(self.start_plan)
        self.apply_button.clicked.connect(self.start_apply)
        self.teardown_button.clicked.connect(self.start_teardown)
        self.cancel_button.clicked.connect(self.cancel)
        self.verifier = VerifyRunner.of(workbench)
        self.verify_button.clicked.connect(lambda: self.verifier.start(self.verify_family.family))
        self.verifier.progress.connect(lambda done, total, text: self.message.setText(f"Verifying: {text}"))
        self.verifier.verified.connect(lambda v: self.message.setText(self.verifier.headline(v)))
        self.verify_family.follow(workbench.families())
        workbench.designChanged.connect(follow_later(self, workbench.families, self.verify_family.follow))
        self.verifier.failed.connect(lambda error: self.message.setText(failure_text(error)))
        workbench.designChanged.connect(self._design_changed)
        self._set_busy(False)

    # --- the backend list ---------------------------------------------------------------------------

    def _fill_backends(self) -> None:
        """Every plugin by its manifest's title, none imported: a plugin is imported when it is chosen."""
        for info in self.plugins:
            self.backend_box.addItem(info.title, info.name)
            if info.exception is None:
                self._item(info).setToolTip(f"{info.name} from {info.distribution or 'this installation'}")
            else:
                self._grey_out(info)
        first_ok = next((i for i, info in enumerate(self.plugins) if info.exception is None), -1)
        self.backend_box.setCurrentIndex(first_ok)
        self._describe_settings()
        if first_ok < 0:
            self.message.setText("No backend is available: install a backend plugin (the local lab comes "
                                 "with vnetbench's 'local' extra).")

    def _item(self, info: PluginInfo) -> QStandardItem:
        model = self.backend_box.model()
        assert isinstance(model, QStandardItemModel)
        return model.item(self.plugins.index(info))

    def _grey_out(self, info: PluginInfo) -> None:
        """A plugin that cannot be used: named as such, not choosable, the reason in its tooltip."""
        item = self._item(info)
        item.setText(f"{info.name} (failed to load)")
        item.setEnabled(False)
        item.setToolTip(info.error or "failed to load")

    @property
    def info(self) -> PluginInfo | None:
        """The chosen plugin while it can be used (choosing it imported it)."""
        index = self.backend_box.currentIndex()
        return self.plugins[index] if 0 <= index < len(self.plugins) and self.plugins[index].exception is None \
            else None

    @property
    def backend(self) -> Backend | None:
        """The connected backend instance, once an operation has run."""
        return self._backend

    def _describe_settings(self) -> None:
        info = self.info
        fields = bool(info is not None and info.backend is not None and info.backend.settings_fields)
        self.form.setRowVisible(self.connection_row, fields)
        self.settings_label.setText("More settings" if fields else "Settings")
        if fields:
            self.settings.setPlaceholderText("further settings (optional): key=value, … like datastore=LocalDS_0")
        elif info is not None and info.backend is not None and info.backend.capabilities.needs_credentials:
            self.settings.setPlaceholderText("url=https://server/sdk, user=name  (the password comes from the "
                                             "OS keyring)")
        else:
            self.settings.setPlaceholderText("settings (optional): key=value, …")
        self.settings.setToolTip("Connection settings for the backend, comma separated; never a password.")

    def _backend_chosen(self) -> None:
        info = self.info
        if info is not None and info.backend is None:  # chosen, so imported now: and it failed
            self._grey_out(info)
            self.message.setText(f"The backend {info.name!r} failed to load: {info.error}")
        self._describe_settings()
        self._close_backend()
        self.plan = None
        self.changes.clear()
        self._set_busy(False)

    def _close_backend(self) -> None:
        if self._backend is not None:
            try:
                self._backend.close()
            except BackendError:
                pass
            if self.workbench.connected_backend is self._backend:
                self.workbench.set_connected_backend(None)
            self._backend = None
        self.connection.setText("not connected")

    def _needs_dialog(self) -> bool:
        info = self.info
        return self._backend is None and info is not None and info.backend is not None \
            and bool(info.backend.settings_fields)

    def ask_connect(self, then: Callable[[], None] | None) -> ConnectDialog | None:
        """Open the connect dialog for the chosen backend; once connected, carry on with ``then``."""
        info = self.info
        extra = self._settings()
        if info is None or info.backend is None or extra is None or self.task is not None:
            return None
        dialog = ConnectDialog(info.backend, self, extra)
        dialog.connected.connect(lambda backend: self._use(backend, then))
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        self.connect_dialog = dialog
        dialog.open()
        return dialog

    def _dialog_closed(self, dialog: ConnectDialog) -> None:
        if self.connect_dialog is dialog:
            self.connect_dialog = None
        dialog.deleteLater()

    def _use(self, backend: Backend, then: Callable[[], None] | None) -> None:
        self._close_backend()
        self._backend = backend
        self.workbench.set_connected_backend(backend)
        self.connection.setText(f"connected: {describe_target(type(backend), backend.settings)}")
        if then is None:
            self.message.setText("Connected. Plan to see what applying would change.")
        else:
            then()

    def _connected(self, settings: dict[str, str]) -> Backend:
        """The chosen backend, connected (called on the worker thread; one task runs at a time)."""
        if self._backend is None:
            info = self.info
            if info is None or info.backend is None:
                raise BackendError("no backend is chosen", "choose one that loaded")
            backend = info.backend(settings)
            backend.connect()
            self._backend = backend
            self.workbench.set_connected_backend(backend)
        return self._backend

    # --- the three operations -----------------------------------------------------------------------

    def start_plan(self) -> None:
        if self._needs_dialog():
            self.ask_connect(self.start_plan)
            return
        snapshot, settings = self.workbench.snapshot(), self._settings()
        revision = self.workbench.document.revision
        if settings is not None:
            self._run("Planning…", lambda progress, cancel: self._connected(settings).plan(snapshot()),
                      lambda plan: self._planned(plan, revision))

    def start_apply(self) -> None:
        if self._needs_dialog():
            self.ask_connect(self.start_apply)
            return
        snapshot, settings = self.workbench.snapshot(), self._settings()
        if settings is None:
            return
        revision = self.workbench.document.revision
        plan = self.plan if self._plan_revision == revision else None
        risky = [c for c in plan.changes if c.connectivity] if plan is not None else []
        if risky and not self.ask_connectivity(connectivity_question(risky)):
            self.message.setText("Nothing applied: the changes that affect host connectivity were not confirmed.")
            return

        def work(progress: ProgressFn, cancel: CancelToken) -> Outcome:
            backend = self._connected(settings)
            # Only a shown and confirmed plan's risky changes are sent; a plan made here sends none of them.
            backend.settings[CONFIRM_CONNECTIVITY] = bool(risky)
            design = snapshot()
            chosen = plan if plan is not None else backend.plan(design)
            return carry_out(backend, design, lambda: backend.apply(chosen, progress, cancel), cancel, chosen)

        if plan is not None:
            self._mark_pending(plan)
        self._run("Applying…", work, self._applied)

    def _design_changed(self, change: Change) -> None:
        """Another design opened: its plan is not this one's, nor are the canvas badges."""
        if change.op != "reset" or self.task is not None:
            return
        self.plan, self.results, self._plan_revision = None, [], -1
        self.changes.clear()
        self._publish({})
        self.message.setText("Plan to see what applying this design would change.")

    def start_teardown(self, confirmed: bool = False) -> None:
        if self._needs_dialog():
            self.ask_connect(self.start_teardown)
            return
        snapshot, settings = self.workbench.snapshot(), self._settings()
        if settings is None:
            return
        if not confirmed:  # first list what would go, and ask (the local lab too: a running lab is work)
            self._run("Checking what is deployed…", lambda progress, cancel: self._holdings(settings, snapshot()),
                      self._confirm_teardown)
            return
        design_id = self.workbench.topology.id

        def work(progress: ProgressFn, cancel: CancelToken) -> Outcome:
            backend = self._connected(settings)
            return carry_out(backend, snapshot(), lambda: backend.teardown(design_id, progress, cancel), cancel)

        self._run("Tearing down…", work, self._torn_down)

    def _holdings(self, settings: dict[str, str], design: Topology) -> dict[str, ObjectState] | BackendError:
        """On the worker: what the backend holds for the design (or why it cannot tell)."""
        backend = self._connected(settings)
        try:
            return dict(backend.status(design))
        except BackendError as exc:
            return exc

    def teardown_question(self, holdings: dict[str, ObjectState] | BackendError) -> str:
        """The confirmation, naming the design, where, and what will be deleted."""
        backend = self._backend
        where = describe_target(type(backend), backend.settings) if backend is not None else "the backend"
        title = self.info.backend.title if self.info is not None and self.info.backend is not None else "the backend"
        design = self.workbench.topology.name or self.workbench.topology.id
        head = f"Tear down “{design}” on {title} ({where})?"
        if isinstance(holdings, BackendError):
            return (f"{head}\n\nvnetbench could not list what is deployed ({holdings.message}). Tearing down "
                    "deletes everything it created for this design; nothing it did not create is touched.")
        listed = deployed_objects(self.workbench.document.index, holdings)
        if not listed:
            return f"{head}\n\nNothing of this design is deployed there; only leftovers vnetbench created go."
        return (f"{head}\n\nThis deletes what vnetbench created for this design:\n  • " + "\n  • ".join(listed)
                + "\n\nNothing vnetbench did not create is touched.")

    def ask_connectivity(self, question: str) -> bool:
        """Tests replace this; the person answers a warning dialog."""
        B = QMessageBox.StandardButton
        return QMessageBox.warning(self, "Host connectivity", question, B.Yes | B.No, B.No) == B.Yes

    def ask_teardown(self, question: str) -> bool:
        """Tests replace this; the person answers a dialog."""
        B = QMessageBox.StandardButton
        return QMessageBox.question(self, "Tear down", question, B.Yes | B.No, B.No) == B.Yes

    def _confirm_teardown(self, holdings: dict[str, ObjectState] | BackendError) -> None:
        if self.ask_teardown(self.teardown_question(holdings)):
            self._next = lambda: self.start_teardown(confirmed=True)
        else:
            self.message.setText("Tear down cancelled: nothing was removed.")

    def _settings(self) -> dict[str, str] | None:
        try:
            return parse_settings(self.settings.text())
        except BackendError as exc:
            self.message.setText(describe_error(exc))
            return None

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.cancel_button.setEnabled(False)
            self.message.setText("Cancelling after the current change…")

    # --- running and showing -------------------------------------------------------------------------

    def _run(self, title: str, fn: Callable[[ProgressFn, CancelToken], Any], done: Callable[[Any], None]) -> None:
        if self.task is not None or self.info is None:
            return
        self.message.setText(title)
        self.progress.setRange(0, 0)
        self.progress.setFormat(title)
        self.progress.show()
        task = Task(fn)
        task.progress.connect(self._progress)
        task.succeeded.connect(done)
        task.failed.connect(self._failed)
        task.finished.connect(self._finished)
        self.task = task
        self._set_busy(True)
        task.start()

    def _progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(total, 0))
        self.progress.setValue(done)
        self.progress.setFormat(f"{message} ({done}/{total})" if total else message)

    def _finished(self) -> None:
        self.task = None
        self.progress.hide()
        self._set_busy(False)
        if self._next is not None:
            step, self._next = self._next, None
            step()

    def _set_busy(self, busy: bool) -> None:
        ready = not busy and self.info is not None
        for button in (self.plan_button, self.apply_button, self.teardown_button):
            button.setEnabled(ready)
        self.backend_box.setEnabled(not busy)
        self.settings.setEnabled(not busy)
        self.connect_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def _failed(self, error: BaseException) -> None:
        self.message.setText("Cancelled." if isinstance(error, Cancelled) else describe_error(error))

    def _planned(self, plan: Plan, revision: int) -> None:
        self.plan = plan
        self._plan_revision = revision
        self._show_plan(plan)
        if plan.empty:
            self.message.setText("Nothing to change: the backend already matches the design.")
        else:
            counts = {op: sum(c.op == op for c in plan.changes) for op in Op}
            self.message.setText(f"{len(plan.changes)} changes: " + ", ".join(
                f"{n} to {op.value}" for op, n in counts.items() if n) + ". Apply to carry them out.")

    def _applied(self, outcome: Outcome) -> None:
        self.plan, self.results = None, outcome.results
        if outcome.plan is not None:
            self._show_plan(outcome.plan, outcome.results)
        self.message.setText(self._summary(outcome, "applied"))
        self._publish(outcome.states)

    def _torn_down(self, outcome: Outcome) -> None:
        self.plan, self.results = None, outcome.results
        self.changes.clear()
        self._add_rows([(r.change, r) for r in outcome.results])
        self.message.setText(self._summary(outcome, "removed"))
        self._publish(outcome.states)

    @staticmethod
    def _summary(outcome: Outcome, verb: str) -> str:
        done = sum(r.ok for r in outcome.results)
        failed = sum(r.failed for r in outcome.results)
        noun = "change" if verb == "applied" else "object"
        text = f"{done} {noun}{'s' if done != 1 else ''} {verb}"
        left = sum(r.left_alone for r in outcome.results)
        if left:
            text += f", {left} left alone (not made by vnetbench)"
        if failed:
            text += f", {failed} failed (hover the red objects on the canvas for the reason)"
        if outcome.cancelled:
            text = f"Cancelled: {text}. Apply again to finish, or Tear down to remove what was made."
        elif not outcome.results:
            text = "Nothing to change: the backend already matches." if verb == "applied" else "Nothing to remove."
        return text + ("" if text.endswith(".") else ".")

    def _mark_pending(self, plan: Plan) -> None:
        pending = {c.object_id: ObjectState(DeployState.PENDING, f"{c.op.value}: {c.description}")
                   for c in plan.changes if c.object_id}
        self._publish({**self.states, **pending})

    def _publish(self, states: dict[str, ObjectState]) -> None:
        self.states = dict(states)
        self.workbench.deployStateChanged.emit(dict(states))

    def _show_plan(self, plan: Plan, results: list[ChangeResult] | None = None) -> None:
        self.changes.clear()
        by_key = {r.change.key: r for r in results or []}
        self._add_rows([(c, by_key.get(c.key)) for c in plan.changes])

    def _add_rows(self, rows: list[tuple[Any, ChangeResult | None]]) -> None:
        items = []
        for change, result in rows:
            outcome = ""
            if result is not None:
                state = DeployState.DEPLOYED if result.ok else DeployState.FAILED
                outcome = DEPLOY_SYMBOLS[state] + (" done" if result.ok else f" {result.error or 'failed'}")
            item = QTreeWidgetItem([f"{OP_SYMBOLS[change.op]} {change.op.value}", change.kind,
                                    change.description, outcome])
            item.setForeground(0, QBrush(QColor(OP_COLORS[change.op])))
            if result is not None:
                color = DEPLOY_COLORS[DeployState.DEPLOYED if result.ok else DeployState.FAILED]
                item.setForeground(3, QBrush(QColor(color)))
                item.setToolTip(3, plain_tip(result.error or ""))
            item.setToolTip(2, plain_tip(change.key))
            items.append(item)
        self.changes.addTopLevelItems(items)
        for column in range(3):
            self.changes.resizeColumnToContents(column)
