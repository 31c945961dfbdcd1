"""What counts as unchanged for a redraw (gui/redraw.py, `same`): numeric arrays by value in one comparison."""
import numpy as np

from tcoapp.gui.redraw import Signatures, same


def test_numeric_arrays_are_compared_by_value_nan_equal_to_nan():
    assert same(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert same(np.array([1, 2]), np.array([1.0, 2.0]))
    assert not same(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    assert not same(np.zeros(2), np.zeros(3))
    assert not same(np.zeros((2, 1)), np.zeros(2))   # a shape change is a change


def test_other_arrays_and_objects_are_compared_by_identity():
    texts = np.array(["a", "b"])
    assert same(texts, texts) and not same(texts, texts.copy())
    marker = object()
    assert same((np.arange(3.0), marker), (np.arange(3.0), marker))
    assert not same((np.arange(3.0), marker), (np.arange(3.0), object()))


def test_a_signature_of_arrays_redraws_only_when_a_value_changes():
    drawn = Signatures()
    assert drawn.changed("bars", (np.array([0.0, 1.0]), np.array([2.0, np.nan])))
    assert not drawn.changed("bars", (np.array([0.0, 1.0]), np.array([2.0, np.nan])))
    assert drawn.changed("bars", (np.array([0.0, 1.5]), np.array([2.0, np.nan])))


def test_lists_and_tuples_are_the_same_by_identity_or_element_by_element():
    marker, brush = object(), object()
    assert same([marker, brush], [marker, brush])
    assert same((1.0, np.nan, "a"), [1.0, float("nan"), "a"])           # equal values, not the same objects
    assert same([np.array([1.0, 2.0]), marker], [np.array([1.0, 2.0]), marker])
    assert not same([marker, brush], [marker, object()])
    assert not same([marker, 1.0], [marker, 1.5])
    assert not same([marker], [marker, marker])
    assert not same(["1"], [1])
