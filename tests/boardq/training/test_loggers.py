"""Loggers: JSON lines, TensorBoard scalars, and the terminal progress."""

from __future__ import annotations

import io
import json
import re

import tensorflow as tf

from boardq.training.loggers import JsonLinesLogger, TensorBoardLogger, TerminalLogger, format_line


def test_json_lines_append_every_dict_without_the_clock(tmp_path):
    path = tmp_path / "m.jsonl"
    for step in (1, 2):
        logger = JsonLinesLogger(path)
        logger.write({"time": 123.0, "train_steps": step, "loss": 0.5})
        logger.close()
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert rows == [{"train_steps": 1, "loss": 0.5}, {"train_steps": 2, "loss": 0.5}]


def test_tensorboard_scalars_at_the_train_step(tmp_path):
    logger = TensorBoardLogger(tmp_path)
    logger.write(
        {"time": 1.0, "train_steps": 40, "loss": 0.25, "note": "text", "nan": float("nan")}
    )
    logger.close()
    tags = {}
    for event_file in tmp_path.iterdir():
        for raw in tf.data.TFRecordDataset(str(event_file)):
            event = tf.compat.v1.Event.FromString(raw.numpy())
            for value in event.summary.value:
                tags[value.tag] = (event.step, tf.make_ndarray(value.tensor).item())
    assert tags["loss"] == (40, 0.25) and tags["train_steps"] == (40, 40.0)
    assert "note" not in tags and "nan" not in tags and "time" not in tags


def test_the_terminal_logger_prints_a_line_per_write_when_piped():
    out = io.StringIO()
    logger = TerminalLogger("title", stream=out, live=False)
    logger.message("training tic-tac-toe")
    logger.write({"train_steps": 1234, "loss": 0.01, "eval/random/first/win": 0.5})
    logger.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "training tic-tac-toe"
    assert lines[1] == "train steps 1,234 | loss 0.0100 | win vs random (1st) 50%"
    assert format_line({}) == ""


def test_the_progress_line_reads_as_the_budget_spent():
    from boardq.training.budget import Budget

    metrics = {"elapsed_sec": 415.0, "train_steps": 1200, "loss": 0.01}
    # A resumed run's 415 s: the budget's clock reads them (and the moment since).
    both = format_line(metrics, Budget(5000, 30.0, base_elapsed=415.0))
    assert re.fullmatch(
        r"elapsed 6:5\d of 30:00, 1,200 of 5,000 steps \| train steps 1,200 .*", both
    )
    assert format_line(metrics, Budget(5000, 0.0)).startswith(
        "elapsed 415s, 1,200 of 5,000 steps | train steps 1,200 | loss 0.0100"
    )
    assert format_line(metrics, Budget(0, 0.0)).startswith("elapsed 415s | train steps 1,200")
    out = io.StringIO()
    logger = TerminalLogger("title", stream=out, live=False, budget=Budget(0, 30.0))
    logger.write(metrics)
    logger.close()
    assert re.fullmatch(
        r"elapsed 0:0\d of 30:00 \| train steps 1,200 \| loss 0.0100\n", out.getvalue()
    )
