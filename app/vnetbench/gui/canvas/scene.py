"""The canvas scene: draws the workbench's document and turns mouse gestures into editor commands.

The scene never edits items as the truth: it edits the model through the ``Editor`` (one undo command per
gesture) and re-draws from the model when the document announces a change (``sync``). Each gesture (move,
resize, drawing a link) is an ``interactions.Interaction`` that holds its own state while the button is down;
only then do items move ahead of the model, and the release pushes the gesture as one command.

A refused gesture (a drop the design cannot take, a link between things that do not connect) says why where
the mouse is: ``refused`` carries the sentence and the scene point, and the window shows it there.

``DesignScene`` is put together from one class per job, each in its own module: following the model
(``following``), fitting frames (``framing``), routing links (``routing``), selection (``selecting``),
hit-testing and containment (``containment``), mouse dispatch (``gestures``) and drop placement (``dropping``);
what is left here is the state they share, the theme and the badges.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QGraphicsScene

from ...model import Topology
from ..colors import DEPLOY_COLORS, DEPLOY_SYMBOLS, canvas_theme, refresh_theme
from ..editing import Editor
from ..plain import tip as plain_tip
from ..signals import connect_weakly
from ..workbench import Workbench
from .drawn import Drawn
from .interactions import Interaction
from .items import LinkItem, HandleItem, NodeItem, NoteItem
from .overlay import PathOverlay
from .containment import Containment
from .dropping import Dropping
from .following import Following, handle_colour
from .framing import Framing
from .gestures import Gestures
from .overview import Bundles
from .routing import Routing
from .selecting import Selecting


class DesignScene(Following, Framing, Routing, Selecting, Containment, Gestures, Dropping, QGraphicsScene):
    #: The view should show this rectangle (something was selected from outside the canvas: a panel).
    focusRequested = Signal(QRectF)
    #: The items were brought up to date with the model (a sync or a move finished).
    drawn = Signal()
    #: A gesture was refused: why, and the scene point where the mouse was.
    refused = Signal(str, QPointF)

    def __init__(self, workbench: Workbench, editor: Editor | None = None) -> None:
        super().__init__(workbench)  # lives as long as the design it draws
        self.workbench = workbench
        self.editor = editor or Editor(workbench)
        self.snap_to_grid = True
        self.nodes: dict[str, NodeItem | NoteItem] = {}
        self.handles: dict[str, HandleItem] = {}
        self.links: dict[str, LinkItem] = {}
        self.touching: dict[str, set[str]] = {}  # node id -> keys of links drawn to it or its handles
        self._place_of: dict[int, str] = {}
        self._dirty = True
        self._moved: set[str] = set()
        self._changed: set[str] = set()  # items to redraw for a change of one field (``_keys_changed``)
        self.shown: dict[str, Drawn] = {}
        self.keys_of: dict[str, list[str]] = {}  # model id -> the keys of the items drawn for it
        self.held: dict[str, list[str]] = {}  # frame key -> the keys of what it holds
        self._host_counts: dict[str, str] = {}
        self._tinted: set[str] = set()  # host tiles coloured by a problem (``show_problems``)
        self.vms_in: dict[str, int] = {}  # host id -> how many VMs it holds
        self._syncing = False
        self._selecting = False
        self.interaction: Interaction | None = None
        self.deploy_states: dict = {}
        self.overview = False  # zoomed far out: handles hidden, so Qt does not even visit them
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self.flush)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.setBackgroundBrush(QColor(canvas_theme().background))
        connect_weakly(QGuiApplication.styleHints().colorSchemeChanged, self, "follow_colour_scheme")
        self.overlay = PathOverlay(self)
        self.addItem(self.overlay)
        self.bundles = Bundles(self)
        self.addItem(self.bundles)
        self.spans: dict[str, list[str]] = {}
        self.inner: set[str] = set()
        self.parent_of: dict[str, str] = {}
        self.arranged: dict = {}
        self.arranged_edges: dict = {}
        self.gradually: tuple | None = None  # (batch, progress) for the next reset: see sync_gradually
        self._dirty_meanwhile = False
        connect_weakly(workbench.designChanged, self, "_design_changed")
        connect_weakly(workbench.undo_stack.indexChanged, self, "flush")
        connect_weakly(workbench.selectionChanged, self, "_select_ids")
        connect_weakly(workbench.pathHighlighted, self, "show_prediction")
        connect_weakly(workbench.deployStateChanged, self, "show_deploy_states")
        self.selectionChanged.connect(self._selection_to_workbench)
        self.sync()

    def follow_colour_scheme(self, *_: object) -> None:
        """The desktop went dark (or light): the canvas follows, background, items and links."""
        refresh_theme()
        self.setBackgroundBrush(QColor(canvas_theme().background))
        for handle in self.handles.values():
            handle.colour = QColor(handle_colour(handle.kind))
        for item in [*self.nodes.values(), *self.handles.values(), *self.links.values(), self.bundles]:
            item.update()  # also drops a cached picture
        for view in self.views():
            view.resetCachedContent()
            view.viewport().update()  # with what floats over it (the overview map)

    def show_prediction(self, prediction) -> None:
        self.overlay.show_prediction(prediction)

    def show_problems(self, problems) -> None:
        """Colour each host tile (zoomed far out) by the worst problem of what it holds; the rest plain."""
        order = {"error": 0, "warning": 1, "info": 2}
        worst: dict[str, str] = {}
        for problem in problems:
            severity = str(problem.severity)
            for key in self.drawn_keys(problem.object_id):
                top = ([key] + self.ancestors_drawn(key))[-1]
                if top in worst and order.get(worst[top], 3) <= order.get(severity, 3):
                    continue
                worst[top] = severity
        for oid in self._tinted | worst.keys():   # not every node: a large design has tens of thousands
            item = self.nodes.get(oid)
            if isinstance(item, NodeItem) and item.kind == "host" and item.verdict != worst.get(oid):
                item.verdict = worst.get(oid)
                item.update()
        self._tinted = set(worst)

    def show_deploy_states(self, states: dict) -> None:
        """Badges from the deploy dock: what the backend holds for each object (and why, in the tooltip)."""
        self.deploy_states = dict(states)
        for oid, item in self.nodes.items():
            state = states.get(oid)
            key = str(state.state) if state is not None else None
            badge = (DEPLOY_SYMBOLS.get(key, "?"), DEPLOY_COLORS.get(key, "#7f7f7f")) if key else None
            if badge != getattr(item, "badge", None) and isinstance(item, NodeItem):
                item.badge = badge
                item.setToolTip(plain_tip(f"{key}: {state.reason}" if state is not None and state.reason
                                          else (key or "")))
                item.update()

    # --- following the model ---------------------------------------------------------------------------

    @property
    def topology(self) -> Topology:
        return self.workbench.topology


    # --- links -------------------------------------------------------------------------------------------


    # --- selection ---------------------------------------------------------------------------------------


    # --- containment -------------------------------------------------------------------------------------


    # --- gestures ----------------------------------------------------------------------------------------


    # --- dropping palette entries --------------------------------------------------------------------------


    # --- what other parts ask ----------------------------------------------------------------------------


