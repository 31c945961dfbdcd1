"""Map the names tools write (aiconfigurator `h200_sxm`, InferenceX `gb300`, Hugging Face
`nvidia/Llama-3.1-70B-Instruct-FP8`) to catalog device and model names.

Names are compared reduced to lower-case letters and digits, the organization prefix of a model id
dropped, then: exact; exact with form-factor words removed (sxm, pcie, nvl72: `gb200_sxm` and
`GB200-NVL72` are one system); else the longest catalog name that starts the file's name or that
the file's name starts (`DeepSeek-R1-0528` -> `DeepSeek-R1`, `gb300` -> `GB300-NVL72`). Anything
but an exact match is said in a note; no match keeps the file's name, also said.
"""
from __future__ import annotations

import re
from typing import Iterable

_FORM_FACTOR = re.compile(r"(sxm\d*|pcie|nvl\d+|oam)")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.split("/")[-1].lower())


def _bare(name: str) -> str:
    return _FORM_FACTOR.sub("", _norm(name))


def match_catalog_name(raw: str, names: Iterable[str], what: str) -> tuple[str | None, str]:
    """(catalog name or None, note; empty when the match is exact)."""
    names = list(names)
    if not raw:
        return None, ""
    key = _norm(raw)
    for name in names:
        if _norm(name) == key:
            return name, ""
    bare = [n for n in names if _bare(n) and _bare(n) == _bare(raw)]
    prefix = [n for n in names if _norm(n) and (key.startswith(_norm(n)) or _norm(n).startswith(key))]
    found = bare or sorted(prefix, key=lambda n: -len(_norm(n)))
    if found:
        return found[0], f"{what} {raw!r} read as catalog {what} {found[0]!r}"
    return None, (f"{what} {raw!r} matches no catalog {what}: the curve keeps the file's name (add the {what} "
                  f"to the workbook's {what.capitalize()}s sheet, or rename it in the Curves sheet, to use it)")
