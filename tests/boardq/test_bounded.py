"""Numbers' text bounded before conversion: the bound, whole numbers, JSON."""

from __future__ import annotations

import json

import pytest

from boardq.bounded import (
    MAX_NUMBER_CHARS,
    NumberTextError,
    check_number_text,
    loads,
    whole_number,
)


def test_text_up_to_the_bound_passes_and_one_more_character_is_refused():
    assert check_number_text("1" * MAX_NUMBER_CHARS) == "1" * MAX_NUMBER_CHARS
    assert check_number_text(b"-7.5") == "-7.5"
    with pytest.raises(NumberTextError) as e:
        check_number_text("1" * (MAX_NUMBER_CHARS + 1), "KM")
    assert str(e.value) == "KM: a number 41 characters long (boardq reads numbers of at most 40)"


@pytest.mark.parametrize(
    "text, number", [("19", 19), (b" 9 ", 9), ("+3", 3), ("-12", -12), ("0" * 39 + "7", 7)]
)
def test_whole_numbers(text, number):
    assert whole_number(text, "SZ[x]") == number


@pytest.mark.parametrize("text", ["x", "1_000", "1.5", "", "-", "٣", "²"])
def test_what_is_not_a_whole_number_is_refused(text):
    with pytest.raises(NumberTextError, match=r"^SZ\[x\] is not a number$"):
        whole_number(text, "SZ[x]")


def test_json_numbers_up_to_the_bound_and_past_it():
    assert loads('{"a": [1, -2.5e-3, 1e2], "b": null}') == {"a": [1, -0.0025, 100.0], "b": None}
    assert loads("9" * MAX_NUMBER_CHARS) == int("9" * MAX_NUMBER_CHARS)
    for text in ("9" * 5_000, f"[0.{'1' * 5_000}]", '{"x": -' + "1" * 41 + "}"):
        with pytest.raises(NumberTextError, match="characters long"):
            loads(text)
    with pytest.raises(NumberTextError, match="^JSON nested too deeply$"):
        loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(json.JSONDecodeError):
        loads("[1,")


def test_strict_json_bounds_whole_numbers_to_18_digits_and_refuses_nan():
    assert loads("[" + "9" * 18 + ", 0.5]", strict=True) == [int("9" * 18), 0.5]
    with pytest.raises(NumberTextError, match="^a number has over 18 digits$"):
        loads("-" + "9" * 19, strict=True)
    assert loads("9" * 19) == int("9" * 19)  # not strict: the character bound only
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(NumberTextError, match=f"^{constant} is not a number$"):
            loads(f'{{"x": {constant}}}', strict=True)
    assert loads("[NaN]")[0] != loads("[NaN]")[0]  # json's reading, where not strict
