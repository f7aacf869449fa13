"""Numbers of any length in a `--config` file: one line, never a traceback.

JSON and TOML numbers longer than boardq reads are refused before Python converts
them; whole numbers past 18 digits and non-finite numbers are refused as the setting's
value. `boardq train --show-config` runs in this process (it imports no TensorFlow).
"""

from __future__ import annotations

import json

import pytest

from boardq.commands import main

LONG = "9" * 5_000
TOO_LONG = "a number 5,000 characters long (boardq reads numbers of at most 40)"


def show_config(tmp_path, name: str, text: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text)
    code = main(["train", "tictactoe", "--config", str(path), "--show-config"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.json", f'{{"budget_steps": {LONG}}}', f"a.json: {TOO_LONG}"),
        ("a.json", f'{{"tau": 0.{LONG[2:]}}}', f"a.json: {TOO_LONG}"),
        ("a.json", f'{{"network": {{"hidden_units": [8, {LONG}]}}}}', f"a.json: {TOO_LONG}"),
        ("a.json", "[" * 100_000, "a.json: JSON nested too deeply"),
        ("a.toml", f"budget_steps = {LONG}\n", f"a.toml: {TOO_LONG}"),
        ("a.toml", f"tau = 0.{LONG[2:]}\n", f"a.toml: {TOO_LONG}"),
        ("a.toml", f"[network]\nhidden_units = [8, {LONG}]\n", f"a.toml: {TOO_LONG}"),
        (
            "a.toml",
            "seed = 1" + "0" * 18 + "\n",
            "a.toml: seed must be a whole number of at most 18 digits, got 1" + "0" * 18,
        ),  # fmt: skip
        (
            "a.json",
            '{"budget_minutes": 1e999}',
            "a.json: budget_minutes must be a finite number, got inf",
        ),  # fmt: skip
    ],
)
def test_a_number_of_any_length_is_one_line(tmp_path, capsys, name, text, message):
    code, out, err = show_config(tmp_path, name, text, capsys)
    assert (code, out, err) == (1, "", f"boardq train: error: {tmp_path}/{message}\n")


def test_digits_in_text_and_comments_and_numbers_up_to_the_bounds_are_read(tmp_path, capsys):
    text = (
        "# 99999999999999999999999999999999999999999999999999\n"
        f'out_dir = "runs-{"1" * 60}"\n'
        "seed = 999999999999999999\n"  # 18 digits
        "tau = 0.00100000000000000000000000000000000\n"  # 37 characters
    )
    code, out, err = show_config(tmp_path, "a.toml", text, capsys)
    assert code == 0, err
    shown = json.loads(out)
    assert shown["out_dir"] == f"runs-{'1' * 60}"
    assert (shown["seed"], shown["tau"]) == (999_999_999_999_999_999, 0.001)
