"""The scale of property tests' examples: everyday by default, read strictly when set."""

import pytest

from tests.examples import SCALE_VARIABLE, examples


def test_a_property_draws_its_everyday_examples_when_no_scale_is_set(monkeypatch):
    monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    assert examples(500) == 500


def test_a_thorough_run_draws_the_scaled_number_of_examples(monkeypatch):
    monkeypatch.setenv(SCALE_VARIABLE, "10")
    assert examples(500) == 5000
    monkeypatch.setenv(SCALE_VARIABLE, "0.001")
    assert examples(20) == 1


@pytest.mark.parametrize("text", ["ten", "0", "-2", "nan", "1e9"])
def test_a_scale_that_is_not_a_sensible_number_is_refused_by_name(monkeypatch, text):
    monkeypatch.setenv(SCALE_VARIABLE, text)
    with pytest.raises(ValueError, match=SCALE_VARIABLE):
        examples(500)
