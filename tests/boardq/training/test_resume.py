"""Resuming goes on with what the run had: replay, generators, pool; bad replay files refused."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from boardq.dqn.replay_file import ReplayFileReader, ReplayFileWriter
from boardq.errors import RunDirError
from boardq.training.checkpoints import CheckpointStore
from boardq.training.resume import rng_state
from boardq.training.trainer import Trainer
from boardq_games import get_game

GAME = get_game("tictactoe")


def _rows(ring) -> dict[str, np.ndarray]:
    """Every row of a ring, oldest first."""
    blocks = [rows for _, rows in ring.snapshot().blocks()]
    return {key: np.concatenate([b[key] for b in blocks]) for key in blocks[0]}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, tiny_settings_for):
    """A finished tic-tac-toe run (the `tiny_config` fixture's settings), made once."""
    cfg = tiny_settings_for(tmp_path_factory.mktemp("finished"))
    return Trainer(cfg, GAME).run().run_dir


@pytest.fixture
def pool_run(tiny_config):
    """A finished run with an opponent pool (its trainer, for what it held at the end)."""
    cfg = tiny_config.replace(pool_share=0.5, pool_every_steps=8, pool_size=3, budget_steps=120)
    trainer = Trainer(cfg, GAME)
    trainer.run()
    return trainer


def test_a_resumed_run_goes_on_with_the_replay_generators_and_pool_it_saved(pool_run):
    first = pool_run
    cfg = first.config.replace(budget_steps=240)
    resumed = Trainer(cfg, GAME, resume_dir=first.run_dir)
    resumed.build()
    try:
        # The replay, row for row, and no warm-up: it holds more than the warm-up.
        assert resumed.ring.size == first.ring.size > cfg.warmup_transitions
        saved, back = _rows(first.ring), _rows(resumed.ring)
        for key in saved:
            np.testing.assert_array_equal(back[key], saved[key])
        assert resumed.limiter.warmup == 0
        assert any("replay restored" in note for note in resumed.notes)
        # Sampling, exploring and the pool games go on with their generators' states.
        assert rng_state(resumed.feed.rng) == rng_state(first.feed.rng)
        pairs = list(zip(first.collection.actors, resumed.collection.actors, strict=True))
        for old, new in pairs:
            assert rng_state(new.rng) == rng_state(old.rng)
            assert rng_state(new.pool.rng) == rng_state(old.pool.rng)
        # The exploration schedule is where it was (moves admitted, not only delivered).
        assert resumed.explored() == first.explored()
        assert resumed.epsilon() == first.epsilon()
        # The opponent pool's past snapshots, weights and all.
        assert resumed.learner.pool.versions == first.learner.pool.versions
        for old, new in zip(first.learner.pool.kept(), resumed.learner.pool.kept(), strict=True):
            for a, b in zip(old.weights, new.weights, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    finally:
        resumed.close()


def test_no_save_replay_writes_small_checkpoints_and_a_resume_warms_up_again(
    tiny_config, finished_run
):
    cfg = tiny_config.replace(save_replay=False)
    first = Trainer(cfg, GAME).run()

    def rows_saved(run_dir) -> int:
        with ReplayFileReader(_latest_replay(run_dir)) as reader:
            return reader.shape("replay/obs")[0] if "replay/obs" in reader.arrays else 0

    assert rows_saved(first.run_dir) == 0
    assert rows_saved(finished_run) > cfg.warmup_transitions  # the same run with it
    resumed = Trainer(cfg.replace(budget_steps=80), GAME, resume_dir=first.run_dir)
    resumed.build()
    try:
        assert resumed.ring.size == 0
        assert resumed.limiter.warmup == cfg.warmup_transitions
        assert any("holds no replay (--no-save-replay)" in note for note in resumed.notes)
    finally:
        resumed.close()


def _latest_replay(run_dir):
    store = CheckpointStore(run_dir / "checkpoints", _NoCheckpoint())
    return store.replay_path(store.latest())


class _NoCheckpoint:
    """Stands in for tf.train.Checkpoint where only the committed names are read."""

    save_counter = None


def _rewrite(path, **header_changes):
    """The same replay file with some header fields changed."""
    with ReplayFileReader(path) as reader:
        header = {**reader.header, **header_changes}
        arrays = {name: reader.array(name) for name in reader.arrays}
    with ReplayFileWriter(path) as out:
        for name, array in arrays.items():
            out.write(name, array)
        out.close(header)


def _missing(path):
    path.unlink()


def _cut_short(path):
    path.write_bytes(path.read_bytes()[:-100])


def _another_game(path):
    _rewrite(path, game="connect_four")


def _another_checkpoint(path):
    _rewrite(path, token="120-0123456789abcdef")


def _damaged(path):
    data = bytearray(path.read_bytes())
    with ReplayFileReader(path) as reader:
        offset = reader._parts[-1][4]  # the last part: a column of the ring
    data[offset + 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (_missing, "is missing"),
        (_cut_short, "is cut short"),
        (_another_game, "is of a connect_four run"),
        (_another_checkpoint, "belongs to another checkpoint"),
        (_damaged, "is damaged"),
    ],
    ids=["missing", "cut-short", "another-game", "another-checkpoint", "damaged"],
)
def test_a_replay_file_that_cannot_be_used_is_refused_unless_asked(
    tiny_config, finished_run, tmp_path, spoil, words
):
    run_dir = shutil.copytree(finished_run, tmp_path / "run")
    spoil(_latest_replay(run_dir))
    config = (run_dir / "config.json").read_text()
    cfg = tiny_config.replace(budget_steps=100)
    with pytest.raises(RunDirError) as refused:
        Trainer(cfg, GAME, resume_dir=run_dir).build()
    message = str(refused.value)
    assert words in message and "\n" not in message
    assert message.endswith("resume with --resume-without-replay to go on with an empty replay")
    assert (run_dir / "config.json").read_text() == config  # nothing written
    # Asked, the run goes on with an empty replay and says so (a damaged part of the
    # ring is not read then).
    resumed = Trainer(cfg, GAME, resume_dir=run_dir, resume_replay=False)
    resumed.build()
    resumed.close()
    assert resumed.ring.size == 0 and resumed.limiter.warmup == cfg.warmup_transitions
    assert [note for note in resumed.notes if "going on with an empty replay" in note]


def test_a_checkpoint_of_an_earlier_boardq_resumes_only_without_replay(
    tiny_config, finished_run, tmp_path
):
    import tensorflow as tf

    run_dir = shutil.copytree(finished_run, tmp_path / "run")
    first = Trainer(tiny_config, GAME, resume_dir=run_dir)
    first.build()  # restores the run's networks and counters, to write them as before
    first.close()
    # What boardq wrote before replay files: tf.train.CheckpointManager, no token.
    folder = run_dir / "checkpoints"
    shutil.rmtree(folder)
    old = tf.train.Checkpoint(**first.state._objects)
    tf.train.CheckpointManager(old, str(folder), max_to_keep=3).save(checkpoint_number=60)
    cfg = tiny_config.replace(budget_steps=100)
    with pytest.raises(RunDirError, match="written by an earlier boardq.*--resume-without-replay"):
        Trainer(cfg, GAME, resume_dir=run_dir).build()
    resumed = Trainer(cfg, GAME, resume_dir=run_dir, resume_replay=False)
    resumed.build()
    resumed.close()
    assert resumed.state.base_steps == 60 and resumed.ring.size == 0


def test_a_resumed_run_counts_its_evaluations_on_from_the_checkpoint(tiny_config):
    # The ladder seeds each evaluation's games with the count, so a resume that counted
    # from 0 again would replay the games of the first evaluations.
    first = Trainer(tiny_config, GAME)
    first.build()
    try:
        first.ladder.evaluations = 3
        first.save()
    finally:
        first.close()
    resumed = Trainer(tiny_config, GAME, resume_dir=first.run_dir)
    resumed.build()
    resumed.close()
    assert resumed.ladder.evaluations == 3


@pytest.mark.parametrize("threads", [1, 3])
def test_a_resume_with_another_number_of_actor_threads_goes_on_with_the_saved_generators(
    tiny_config, finished_run, tmp_path, threads
):
    run_dir = shutil.copytree(finished_run, tmp_path / "run")
    with ReplayFileReader(_latest_replay(run_dir)) as reader:
        saved = reader.header["meta"]["rng"]["actors"]
    assert len(saved) == tiny_config.actor_threads == 2
    resumed = Trainer(tiny_config.replace(actor_threads=threads), GAME, resume_dir=run_dir)
    resumed.build()
    resumed.close()
    actors = resumed.collection.actors
    assert len(actors) == threads
    # The threads that were saved go on where they stopped (an added one from its seed).
    assert [rng_state(a.rng) for a in actors[:2]] == saved[:threads]


def test_a_checkpoint_of_another_network_is_refused_in_one_line_that_says_why(
    tiny_config, finished_run, tmp_path
):
    run_dir = shutil.copytree(finished_run, tmp_path / "run")
    other = tiny_config.replace(hidden_units=(16,))
    with pytest.raises(RunDirError) as refused:
        Trainer(other, GAME, resume_dir=run_dir).build()
    message = str(refused.value)
    latest = run_dir / "checkpoints" / _latest_replay(run_dir).stem
    assert message.startswith(f"checkpoint {latest} does not fit this game and network: ")
    assert "shape (18, 32)" in message and "shape (18, 16)" in message  # TensorFlow's reason
    assert "\n" not in message


def test_a_replay_with_ownership_columns_fills_rings_with_and_without_them(tmp_path):
    """A run resumed with ownership targets turned off leaves their columns out; one
    turned on refuses a replay saved without them (`_fill`)."""
    from boardq.dqn.ownership import batch_columns
    from boardq.dqn.replay import ReplayRing
    from boardq.dqn.replay_file import ReplayFileError
    from boardq.dqn.schema import SCHEMA, empty_columns
    from boardq.training.checkpoint_replay import REPLAY_PREFIX
    from boardq.training.resume import _fill

    go = get_game("go")
    shapes = (go.obs_shape, go.num_actions)

    def saved(columns, path):
        rows = empty_columns(5, *shapes, columns)
        rows["action"][:] = np.arange(5)
        with ReplayFileWriter(path) as out:
            for key, column in rows.items():
                out.write(REPLAY_PREFIX + key, column)
            out.close({})
        return path

    with_targets = saved(batch_columns(True), tmp_path / "with.replay")
    ring = ReplayRing(10, *shapes, SCHEMA)
    with ReplayFileReader(with_targets) as reader:
        _fill(reader, ring)
    assert ring.size == 5 and ring.columns == tuple(c.name for c in SCHEMA)
    np.testing.assert_array_equal(_rows(ring)["action"], np.arange(5))
    without = saved(SCHEMA, tmp_path / "without.replay")
    ring = ReplayRing(10, *shapes, batch_columns(True))
    with ReplayFileReader(without) as reader, pytest.raises(ReplayFileError, match="ownership"):
        _fill(reader, ring)
