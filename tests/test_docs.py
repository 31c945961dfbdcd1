"""The generated docs are up to date with their sources (the field table, the catalog CSVs), and the
hand-written docs point at things that exist."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import gen_docs  # noqa: E402

from tcoapp.engine.pipeline.compute import METRIC_KEYS  # noqa: E402
from tcoapp.engine.quantities.inputs import FIELD_TABLES  # noqa: E402


@pytest.mark.parametrize("filename", sorted(gen_docs.OUTPUTS))
def test_generated_doc_is_up_to_date(filename):
    committed = (ROOT / "docs" / filename).read_text(encoding="utf-8")
    assert committed == gen_docs.OUTPUTS[filename](), f"docs/{filename} is stale: run python tools/gen_docs.py"


def test_workbook_format_lists_every_key_and_metric():
    text = gen_docs.workbook_format_md()
    for fields in FIELD_TABLES.values():
        for field in fields:
            assert f"| `{field.name}` |" in text, field.name
    for key in METRIC_KEYS:
        assert f"| `{key}` |" in text, key


def test_catalog_doc_names_every_entry_with_its_source():
    text = gen_docs.catalog_md()
    for filename in ("devices.csv", "models.csv"):
        for row in gen_docs._rows(filename):
            assert f"### {row['name']}" in text
            assert row["source"].strip() and row["source"].strip() in text


def test_user_docs_link_files_that_exist():
    for doc in ("user_guide.md", "model.md"):
        path = ROOT / "docs" / doc
        assert path.exists(), doc
        for target in re.findall(r"\]\(([^)#:]+)\)", path.read_text(encoding="utf-8")):
            if target.startswith("screenshots/"):
                continue  # taken by the GUI's screenshot run; the guide says which views have one
            assert (path.parent / target).resolve().exists(), f"{doc} links {target}"


def test_the_repository_cites_its_own_docs_not_the_design_contract():
    """The repository stands alone: its files cite docs/, README.md and their sections, never the
    numbered sections of the design contract it was built from (a reader of the repository has no
    copy of it)."""
    pattern = re.compile(r"DESIGN\s+sections?\s+\d")
    offenders = [str(path.relative_to(ROOT)) for folder in ("tcoapp", "tests", "benchmarks", "tools", "docs", "samples")
                 for path in (ROOT / folder).rglob("*") if path.suffix in {".py", ".md", ".txt", ".toml"}
                 and pattern.search(path.read_text(encoding="utf-8", errors="replace"))]
    offenders += [name for name in ("README.md", "pyproject.toml") if pattern.search((ROOT / name).read_text())]
    assert not offenders, offenders


def test_readme_and_user_guide_blocks_are_generated_from_the_code():
    """The samples' count and list and the example headline come from the code (tools/doc_blocks.py):
    the committed README and user guide equal what tools/gen_docs.py makes of them."""
    from tools import doc_blocks
    from samples.build_samples import SAMPLES
    for path in doc_blocks.FILES:
        text = path.read_text(encoding="utf-8")
        assert doc_blocks.rewrite(text) == text, f"{path.name} is stale: run python tools/gen_docs.py"
        assert "<!-- gen:samples-table -->" in text
    guide = (ROOT / "docs" / "user_guide.md").read_text(encoding="utf-8")
    assert "<!-- gen:example-headline -->" in guide and len(SAMPLES) == 10
    assert all(f"`{s.filename}`" in guide for s in SAMPLES)
