"""The one number formatter (engine/core/number_format.py)."""
from tcoapp.engine.core.number_format import count, json_rounded, money, money_short, number, percent


def test_money_keeps_its_precision():
    assert [money(x) for x in (1.713, 0.4, 0.156, 0.0622, 26737500.0, -431198.2, 0.0)] == [
        "$1.71", "$0.40", "$0.156", "$0.0622", "$26,737,500", "-$431,198", "$0.00"]
    assert money_short(26.7e6) == "$26.7 M" and money(float("nan")) == "n/a"


def test_counts_use_si_suffixes_or_grouping_never_scientific_notation():
    assert count(2.731e13, "tokens") == "27.3 T tokens"
    assert count(42920.4) == "42,920" and count(12) == "12"
    assert number(0.000012345) == "0.0000123" and "e" not in number(1.23e-9)
    assert percent(0.006) == "0.6 %" and percent(0.5449) == "54.5 %"


def test_json_is_rounded_to_twelve_significant_digits():
    assert json_rounded({"a": [26737499.999999996, 1, None, True]}) == {"a": [26737500.0, 1, None, True]}
