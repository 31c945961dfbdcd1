"""The Decision tab and the report say what the engine decides, on the default scenario and every sample:
the same objective, order and P, the headline and the report holding the engine's decision text and its
market sentences with the warning where returns are extreme (the words `tcoapp compute` prints and its JSON
carries: tests/test_decision_everywhere.py)."""
import html
import re
from pathlib import Path

import pytest

from tcoapp.engine.decision.choice import decide
from tcoapp.present.decision_text import decision_text, market_text

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CASES = [None] + sorted(p.name for p in SAMPLES.glob("*.xlsx"))


def _flat(text: str) -> str:
    """Rich text as plain words (tags out, entities read, the warning sign dropped)."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text)).replace("\u26a0", "")
    return " ".join(plain.split()).replace(" .", ".").replace(" ,", ",").replace(" :", ":")


@pytest.mark.parametrize("sample", CASES, ids=[c or "default" for c in CASES])
def test_the_decision_tab_and_the_report_say_what_the_engine_decides(open_window, sample):
    from tcoapp.gui.report_pdf import report_document
    win = open_window(None if sample is None else str(SAMPLES / sample))
    doc = win.document
    engine = decide(doc.scenario, doc.results)
    shown = win.decision.model.decision
    assert (shown.objective, shown.ranked, shown.p_first_beats_second) == (
        engine.objective, engine.ranked, engine.p_first_beats_second)
    assert [row.name for row in win.decision.model.rows] == list(engine.ranked)
    words = _flat(decision_text(engine))
    assert words in _flat(win.decision.headline.text()), sample
    report = _flat(report_document(doc.scenario, doc.results, "t").toPlainText())
    assert words in report, sample
    market = _flat(market_text(engine))   # what the returns assume, and the warning where they are extreme
    assert market and market in _flat(win.decision.headline.text()) and market in report, sample
    assert ("demand and price, not hardware, drive these returns" in market) == bool(engine.market_warning)
