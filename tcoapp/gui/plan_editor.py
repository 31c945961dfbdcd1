"""The plan editor, generated from the field table: one group box per field group, the unit as a
suffix, the allowed range in the tooltip; a rejected value stays visible in red with the engine's
message beside it and the scenario is left unchanged."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QMenu, QPushButton, QScrollArea,
    QVBoxLayout, QWidget,
)

from ..engine.decision.summary import name_mismatch, size_warnings
from ..engine.quantities.inputs import CLASS_OWN_KEYS, PLAN_FIELDS, Field
from .document import Document
from .labels import choice_label, format_field
from .live_text import LiveNotes
from .pools_editor import PoolsEditor
from .workloads_editor import WorkloadsEditor
from .redraw import Redraw
from .soon import call_soon

GROUP_TITLES = {
    "selection": "Hardware and model", "workload": "Workload", "serving": "Serving configuration",
    "target": "Interactivity target", "search": "Serving search", "sizing": "Sizing", "facility": "Facility", "capex": "Capex",
    "opex": "Operating costs", "operations": "Operations", "finance": "Finance", "revenue": "Revenue",
    "years": "Years: prices, ramp, tax", "kv tiers": "Agentic sessions: KV tiers and routing",
}
SIZING_INPUT = {"devices": "device_count", "facility_power": "facility_power_kw",
                "capex_budget": "capex_budget_usd", "demand": "demand_tokens_per_day"}
NAME_LISTS = {"device": "devices", "prefill_device": "devices", "decode_device": "devices", "model": "models",
              "curve": "curves", "price_tiers": "price_tiers"}
POOL_DEVICE_KEYS = ("device", "prefill_device", "decode_device")   # set per pool by a plan's Pools rows
CLASS_KEYS = CLASS_OWN_KEYS   # a class's own, not the plan's
USED_ITEM = "\x00used"   # the data of a greyed name list's item showing what the engine used
ERROR_STYLE = "QLineEdit { border: 2px solid #c62828; background: #ffebee; }"
ERROR_COLOR, UNIT_COLOR = "#c62828", "#555555"
UNIT_MIN_PX = 70          # a unit label's minimum width
GROUP_MARGINS_PX = 32     # a group box's frame, margins and the form's spacing around a row
BODY_MARGINS_PX = 18      # the editor body's margins around its group boxes


def _text_palette(label: QLabel, color: str) -> QPalette:
    palette = label.palette()
    palette.setColor(QPalette.WindowText, QColor(color))
    return palette


class FieldEditor:
    """One input: the widget for the field's type, its unit, and an inline error line, laid out in
    `layout` (a form row's field; no widget of its own: 74 container widgets cost more than the
    editors they hold)."""

    def __init__(self, field: Field, commit, apply=None):
        self.field = field
        self._commit = commit
        self._apply = apply      # apply(key, "all" | "choose"): this plan's value to other plans
        self._error: QLabel | None = None   # made when a first error is shown (most fields never show one)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self._value = None
        self.widget = self._make_widget()
        self.widget.setObjectName(field.name)
        self.widget.setAccessibleName(field.label)
        self.tip = f"{field.label} ({field.name}): {field.help}\nAllowed: {field.range_text()}."
        self.widget.setToolTip(self.tip)
        self.widget.commit_pending = self.commit_pending   # what Ctrl+Z asks the focused input (shortcuts.py)
        if apply is not None:
            self.widget.setContextMenuPolicy(Qt.CustomContextMenu)
            self.widget.customContextMenuRequested.connect(self._menu)
        row.addWidget(self.widget, 1)
        if field.unit:
            unit = QLabel(field.unit)
            unit.setMinimumWidth(UNIT_MIN_PX)
            unit.setPalette(_text_palette(unit, UNIT_COLOR))
            row.addWidget(unit)
        self.layout = QVBoxLayout()
        self.layout.setContentsMargins(0, 0, 0, 0)
        self.layout.setSpacing(1)
        self.layout.addLayout(row)

    def _menu(self, pos) -> None:
        """The input's context menu (a text field's own actions first) with "Apply to all plans" and
        "Apply to plans...": this plan's value of the field, to other plans in one undoable step."""
        w = self.widget
        menu = w.createStandardContextMenu() if isinstance(w, QLineEdit) else QMenu(w)
        if not menu.isEmpty():
            menu.addSeparator()
        menu.addAction(f"Apply {self.field.label} to all plans", lambda: self._apply(self.field.name, "all"))
        menu.addAction(f"Apply {self.field.label} to plans…", lambda: self._apply(self.field.name, "choose"))
        menu.exec(w.mapToGlobal(pos))
        menu.deleteLater()

    @property
    def error(self) -> QLabel:
        """The inline error line under the field (hidden while there is no error)."""
        if self._error is None:
            self._error = QLabel()
            self._error.setPalette(_text_palette(self._error, ERROR_COLOR))  # a palette: one style sheet per label
            self._error.setWordWrap(True)                                     # would cost more than the editor
            self._error.hide()
            self.layout.addWidget(self._error)
        return self._error

    @property
    def has_error(self) -> bool:
        return self._error is not None and not self._error.isHidden()

    def _make_widget(self):
        f = self.field
        if f.type == "bool":
            w = QCheckBox()
            w.toggled.connect(lambda on: self._commit(f.name, on))
        elif f.type == "choice":
            w = QComboBox()
            for key in f.choices:           # its label shown, its key kept
                w.addItem(choice_label(key), key)
            w.activated.connect(lambda _: self._commit(f.name, w.currentData()))
        elif f.name in NAME_LISTS:
            w = QComboBox()
            w.setEditable(False)
            w.activated.connect(lambda _: self._commit(f.name, w.currentData()))
        else:
            w = QLineEdit()
            w.editingFinished.connect(lambda: self._commit(f.name, w.text()))
            if not f.required and f.default is None:
                w.setPlaceholderText("not set")
        return w

    def set_names(self, names: list[str]) -> None:
        if tuple(names) == getattr(self, "_names", None):
            return      # the same list: refilling it costs more than the rest of a redraw
        self._names = tuple(names)
        w = self.widget
        w.blockSignals(True)
        w.clear()
        if not self.field.required:
            w.addItem("(none)", "")
        for name in names:
            w.addItem(name, name)
        w.blockSignals(False)

    def commit_pending(self) -> bool:
        """Commit text typed but not yet committed (Ctrl+Z / Ctrl+Y arrive before focus leaves).
        Text the engine refuses is put back to the plan's value instead; True when that happened
        (the key then only discards the typing)."""
        w = self.widget
        if not isinstance(w, QLineEdit) or not w.isModified():
            return False
        w.setModified(False)
        if self._commit(self.field.name, w.text()) is None:
            return False
        self.show_error(None)
        self.set_value(self._value)
        return True

    def set_value(self, value, used=None) -> None:
        """Show `value`; a greyed field shows `used`, the value the engine used, when given."""
        self._value = value
        w = self.widget
        w.blockSignals(True)
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QComboBox) and self.field.name in NAME_LISTS:
            used_item = w.findData(USED_ITEM)
            if used_item >= 0:
                w.removeItem(used_item)
            if used is not None:   # greyed: what the engine used, as an item of its own (it is not a choice)
                w.addItem(str(used), USED_ITEM)
                i = w.count() - 1
            else:
                i = w.findData(value or "")
            if i < 0:
                w.addItem(value, value)
                i = w.count() - 1
            w.setCurrentIndex(i)
        elif isinstance(w, QComboBox):
            i = w.findData(value)
            if i >= 0 and i != w.currentIndex():
                w.setCurrentIndex(i)
        elif not self.has_error:
            text = format_field(self.field, value if used is None else used)
            if w.text() != text or w.isModified():
                w.setText(text)
                w.setCursorPosition(0)
        w.blockSignals(False)

    def show_error(self, message: str | None) -> None:
        if message:
            self.error.setText(message)
            self.error.show()
            if isinstance(self.widget, QLineEdit):
                self.widget.setStyleSheet(ERROR_STYLE)
        elif self._error is not None:
            self._error.hide()
            self.widget.setStyleSheet("")


class PlanEditor(QWidget):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.plan_box = QComboBox()
        self.plan_box.activated.connect(lambda i: document.set_current_index(i))
        self.notes = LiveNotes("#fff8e1", "#ffcc80", padding=4)   # changes with most edits: only painted
        self.notes.setToolTip("What the engine chose or could not do for this plan")
        self.freeze = QPushButton("Freeze this configuration")
        self.freeze.setToolTip("Type the configuration the serving search chose into the plan and turn the search off "
                               "(same numbers, no search; undoable)")
        self.freeze.clicked.connect(lambda: document.freeze_serving(document.current_index))
        self._editors: dict[str, FieldEditor] = {}
        self._body = body = QWidget()
        self._body_layout = body_layout = QVBoxLayout(body)
        self._groups: dict[str, QFormLayout] = {}
        body_layout.addStretch(1)   # closes the column: group boxes are inserted before it
        pools_box = QGroupBox("Pools (fleet)")
        pools_layout = QVBoxLayout(pools_box)
        self.pools = PoolsEditor(document)
        pools_layout.addWidget(self.pools)
        workloads_box = QGroupBox("Workloads (request classes)")
        workloads_box.setToolTip("The plan's requests as a mix of classes, each with its share, lengths, targets and "
                                 "prices (the workbook's Workloads sheet)")
        self.workloads = WorkloadsEditor(document)
        document.scenario_changed.connect(self.workloads.refresh)
        document.current_changed.connect(lambda _i: self.workloads.refresh())
        QVBoxLayout(workloads_box).addWidget(self.workloads)
        self._rest = [f for f in PLAN_FIELDS if f.group != "selection"]   # below the editor's first screen
        self._add_fields([f for f in PLAN_FIELDS if f.group == "selection"])
        body_layout.insertWidget(body_layout.count() - 1, pools_box)
        body_layout.insertWidget(body_layout.count() - 1, workloads_box)
        body.installEventFilter(self)   # the rest of the fields: once the first screen has painted
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(QLabel("Plan:"))
        top.addWidget(self.plan_box, 1)
        layout.addLayout(top)
        layout.addWidget(self.notes)
        layout.addWidget(self.freeze)
        layout.addWidget(scroll, 1)
        document.current_changed.connect(self._on_current)
        self.redraw = Redraw(self, document.scenario_changed)
        self.redraw.part("plan_box", lambda: (tuple(p.name for p in document.scenario.plans), document.current_index),
                         self._draw_plan_box)
        self.redraw.part("plan", self._plan_inputs, self._draw_plan)
        self.refresh()
        self._fit_width()   # measured once the name lists are filled (a list's width is fixed at its first measure)

    def _add_fields(self, fields) -> None:
        """Form rows for `fields`, in group boxes placed before the closing stretch."""
        boxes = []
        for field in fields:
            if field.group not in self._groups:
                box = QGroupBox(GROUP_TITLES.get(field.group, field.group.title()))
                form = QFormLayout(box)
                form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
                form.setLabelAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self._groups[field.group] = form
                self._body_layout.insertWidget(self._body_layout.count() - 1, box)
                boxes.append(box)
            editor = FieldEditor(field, self._commit, self._apply_chosen)
            label = QLabel(field.label)
            label.setToolTip(field.help)
            self._groups[field.group].addRow(label, editor.layout)
            self._editors[field.name] = editor
        for box in boxes:
            box.show()   # with its rows: made after the editor was shown, they would stay hidden

    def _build_rest(self) -> None:
        """The fields below the editor's first screen: built once that screen has painted (the window
        shows sooner), or at once where something asks for them first."""
        if not self._rest:
            return
        rest, self._rest = self._rest, []
        self._add_fields(rest)
        self.refresh()
        self._fit_width()
        # laid out now, not at a later turn of the event loop (the first computation's worker may hold
        # the interpreter for a while: the editor would show its groups squeezed into one screen)
        QCoreApplication.sendPostedEvents(None, QEvent.LayoutRequest)

    def _fit_width(self) -> None:
        """As wide as the fields with their units (the form scrolls only vertically): measured on the
        fields built, estimated for those still to be built, so the editor does not widen after its
        first screen has shown."""
        scroll = self._body.parentWidget().parentWidget()
        frame = 2 * scroll.frameWidth() + scroll.verticalScrollBar().sizeHint().width()
        body = max(self._body.minimumSizeHint().width(), self._rest_width() + BODY_MARGINS_PX)
        width = max(360, body + frame + 8)
        if width > self.minimumWidth():
            self.setMinimumWidth(width)

    def _rest_width(self) -> int:
        """The widest group box the fields still to be built will make: its widest label, plus its
        widest input with its unit, plus the box's margins (measured with this editor's font)."""
        if not self._rest:
            return 0
        metrics = self.fontMetrics()
        probe = QComboBox()
        probe.addItem("x")
        combo_frame = probe.sizeHint().width() - metrics.horizontalAdvance("x")
        line = QLineEdit().minimumSizeHint().width()
        check = QCheckBox().sizeHint().width()

        def input_px(f: Field) -> int:
            if f.type == "choice":
                return combo_frame + max(metrics.horizontalAdvance(choice_label(k)) for k in f.choices)
            return check if f.type == "bool" else line

        groups: dict[str, list[Field]] = {}
        for f in self._rest:
            groups.setdefault(f.group, []).append(f)
        return max(max(metrics.horizontalAdvance(f.label) for f in fields)
                   + max(input_px(f) + (max(UNIT_MIN_PX, metrics.horizontalAdvance(f.unit)) if f.unit else 0)
                         for f in fields) + GROUP_MARGINS_PX
                   for fields in groups.values())

    def eventFilter(self, watched, event) -> bool:
        if watched is self._body and event.type() == QEvent.Paint and self._rest:
            self._body.removeEventFilter(self)
            call_soon(self, self._build_rest)
        return super().eventFilter(watched, event)

    @property
    def editors(self) -> dict[str, FieldEditor]:
        """Every field's editor by key (the fields below the first screen are built if they are not yet)."""
        self._build_rest()
        return self._editors

    def _on_current(self, _index: int) -> None:
        for editor in self._editors.values():
            editor.show_error(None)
        self.refresh()

    def _commit(self, key: str, raw) -> str | None:
        plan = self._doc.current_plan()
        if plan is None:
            return None
        field = self._editors[key].field
        text = f"Set {field.label} of {plan.name!r} to {raw}"
        error = self._doc.set_plan_values(self._doc.current_index, {key: raw}, text)
        self._editors[key].show_error(error)
        if error is None:
            self.refresh()
        return error

    def _apply_chosen(self, key: str, which: str) -> None:
        """'all': the current plan's value of `key` to every plan; 'choose': to the plans ticked in a dialog."""
        names = [p.name for p in self._doc.scenario.plans]
        if which == "all":
            indices = list(range(len(names)))
        else:
            from .apply_dialog import choose_plans
            indices = choose_plans(self, self.editors[key].field.label, names, self._doc.current_index)
        if indices:
            self.editors[key].show_error(self.apply_to_plans(key, indices))

    def apply_to_plans(self, key: str, indices) -> str | None:
        """The current plan's value of `key` to the plans `indices` (one undoable step); an error names the plan
        that refused it (nothing changed)."""
        plan = self._doc.current_plan()
        if plan is None:
            return None
        from .document import plan_values
        field = self.editors[key].field
        value = plan_values(plan)[key]
        shown = format_field(field, value) or "not set"
        text = f"Set {field.label} of {len(indices)} plan{'s' if len(indices) != 1 else ''} to {shown}"
        error = self._doc.set_plans_values(indices, {key: value}, text)
        if error is None:
            self.refresh()
        return error

    def refresh(self) -> list[str]:
        """Redraw the parts whose inputs changed (an edit of another plan redraws nothing here)."""
        return self.redraw.update()

    def _draw_plan_box(self, names, index) -> None:
        self.plan_box.blockSignals(True)
        if [self.plan_box.itemText(i) for i in range(self.plan_box.count())] != list(names):
            self.plan_box.clear()   # refilled only when the names change (a refill re-lays out the editor)
            self.plan_box.addItems(list(names))
        self.plan_box.setCurrentIndex(index)
        self.plan_box.blockSignals(False)

    def _plan_inputs(self) -> tuple:
        """What the fields show: the current plan, its result and the names it can choose from; a
        field showing an error is redrawn whatever changed (so the error goes)."""
        scenario, index = self._doc.scenario, self._doc.current_index
        errors = object() if any(e.has_error for e in self._editors.values()) else None
        return (scenario.plans[index] if index < len(scenario.plans) else None,
                self._doc.results[index] if index < len(self._doc.results) else None,
                scenario.devices, scenario.models, scenario.curves, scenario.price_tiers, errors, len(self._editors))

    def _draw_plan(self, plan, result, *_lists) -> None:
        if plan is None or result is None:
            return
        scenario = self._doc.scenario
        flags = size_warnings(result) + [n for n in [name_mismatch(plan, scenario.all_device_names())] if n]
        text = "\n".join([f"⚠ {w}" for w in flags] + [f"• {w}" for w in result.warnings])
        self.notes.setText(text)   # re-lays out the editor only when it needs another height
        self.notes.setVisible(bool(flags or result.warnings))
        self.freeze.setVisible(any(s is not None for s in result.searches))
        self._draw_fields(plan, result, scenario)
        self.pools.refresh()

    def _draw_fields(self, plan, result, scenario) -> None:
        """Every field's value, choices, tooltip and whether it is used (greyed when the engine ignores it)."""
        lists = {"devices": scenario.all_device_names(), "models": scenario.all_model_names(),
                 "curves": list(scenario.curves), "price_tiers": list(scenario.price_tiers)}
        used = engine_used(plan, result)
        for name, editor in self._editors.items():
            if name in NAME_LISTS:
                editor.set_names(lists[NAME_LISTS[name]])
            editor.set_value(getattr(plan, name), used.get(name, (None,))[0])
        greyed = {key for key in SIZING_INPUT.values() if key != SIZING_INPUT.get(plan.sizing_mode)}
        if plan.pools:
            greyed.add("device_count")
        if plan.has_target:
            greyed.add("batch")
        if plan.pools:   # each Pools row names its device and role: the plan's own are not used
            greyed.update(POOL_DEVICE_KEYS)
        if plan.workloads:   # each request class has its own lengths and targets
            greyed.update(CLASS_KEYS)
        for name in (set(SIZING_INPUT.values()) | {"batch"} | set(POOL_DEVICE_KEYS) | set(CLASS_KEYS)) & set(self._editors):
            editor = self._editors[name]
            editor.widget.setEnabled(name not in greyed)
            editor.widget.setToolTip(editor.tip + (f"\n{used[name][1]}" if name in used else ""))


def engine_used(plan, result) -> dict[str, tuple[float, str]]:
    """Greyed inputs the engine replaced: key -> (the value it used, why), shown instead of the input."""
    out = {}
    m = result.metrics
    if plan.has_target and m.batch == m.batch:
        out["batch"] = (m.batch, f"Greyed: the engine chose batch {m.batch:g} for the target "
                                    f"(the {plan.batch} entered is kept in the workbook).")
    if (plan.sizing_mode != "devices" or plan.pools) and m.device_count == m.device_count:
        why = "the pools' devices" if plan.pools and plan.sizing_mode == "devices" else f"sizing by {plan.sizing_mode}"
        out["device_count"] = (m.device_count, f"Greyed: {m.device_count:,.0f} devices from {why} "
                                                  f"(the {plan.device_count:,.0f} entered is kept in the workbook).")
    if plan.pools:
        devices = " + ".join(dict.fromkeys(p.device for p in plan.pools))
        out["device"] = (devices, f"Greyed: the plan's Pools rows name its devices ({devices}); the device "
                                  f"entered here ({plan.device}) is not used.")
        for key in POOL_DEVICE_KEYS[1:]:
            out[key] = ("(per pool)", "Greyed: the plan's Pools rows give each pool its role and device.")
    for key in CLASS_KEYS if plan.workloads else ():
        out[key] = (getattr(plan, key), "Greyed: the plan's request classes (the Workloads table) each have their own "
                                        "lengths and targets; the value entered here is not used.")
    return out
