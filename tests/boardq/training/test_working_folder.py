"""A run started in a folder that holds folders named like packages: `games/`, `boardq/`
and `tests/` of other projects (empty folders are namespace packages to Python).

Ray's workers put the driver's working folder first on their sys.path, and `python -m`
puts it first on its own; the actor processes and the ladder's child must still import
the installed boardq.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from boardq.training.cluster import start_ray
from boardq.training.ladder import Ladder
from boardq.training.trainer import Trainer
from boardq_games import get_game

STRAY = ("games", "boardq", "tests")


@pytest.fixture
def stray_folder(tmp_path, monkeypatch):
    """The working folder, holding an empty folder for each of `STRAY`."""
    folder = tmp_path / "elsewhere"
    for name in STRAY:
        (folder / name).mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def test_the_ladder_evaluates_from_a_folder_with_stray_package_folders(tiny_config, stray_folder):
    cfg = tiny_config.replace(eval_ladder="random", eval_games=1, hidden_units=(8,))
    game = get_game("tictactoe")
    shapes = ((18, 8), (8,), (8, 9), (9,))  # tic-tac-toe's planes, 8 hidden units
    weights = [np.zeros(s, np.float32) for s in shapes]
    run_dir = stray_folder / "run"
    run_dir.mkdir()
    ladder = Ladder(cfg, game, run_dir)
    assert ladder.start(3, weights, {})
    deadline = time.monotonic() + 240  # a hang guard: the child runs at nice 19 (a busy machine
    # gives it a few percent of a core), and pytest's own timeout is 300 s
    while (m := ladder.poll()) is None:  # a failed child raises here with its last line
        assert time.monotonic() < deadline, "the ladder's evaluation did not end"
        time.sleep(0.1)
    assert m["eval/version"] == 3 and 0.0 <= m["eval/random/score"] <= 1.0
    assert m["eval/random/first/games"] == 1


@pytest.mark.timeout(900)  # the start's guard below, then the run
def test_actor_processes_import_the_installed_boardq_from_a_folder_with_stray_folders(
    tiny_config, stray_folder, monkeypatch
):
    import ray

    import boardq
    import boardq_games
    from boardq.training import attendance

    # A busy machine's actor process can take minutes to import TensorFlow; here the
    # wait for it only guards against a hang.
    monkeypatch.setattr(attendance, "COME_BACK_SEC", 600.0)

    def where_imported():
        # Imported afresh in a worker (a function defined here travels by value).
        import os

        import boardq
        import boardq_games

        return boardq.__file__, boardq_games.__file__, os.nice(0)

    assert start_ray("", 1)  # as a run starts it; the run below joins it
    try:
        cfg = tiny_config.replace(actor_processes=1, actor_threads=1, budget_steps=200)
        trainer = Trainer(cfg, get_game("tictactoe"))
        m = trainer.run().metrics
        assert m["train_steps"] == 200 and m["actor_restarts"] == 0
        assert trainer.collection.stats[0].transitions > 0
        seen = ray.get(ray.remote(where_imported).remote(), timeout=60)
        # ... and at the run's own priority (Ray's default would be 15 below it).
        assert seen == (boardq.__file__, boardq_games.__file__, os.nice(0))
    finally:
        ray.shutdown()
