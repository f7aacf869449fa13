"""A run's saves: the exported agent's info, the save's figures, kept agents, failed writes."""

from __future__ import annotations

import pytest

from boardq.dqn.builder import Builder
from boardq.dqn.replay import ReplayRing
from boardq.players.agentfile import SYMMETRIC_KEY, read_agent
from boardq.pruning import INFO_KEY
from boardq.rundir import AGENT_FILE
from boardq.training.checkpoint_replay import Extras
from boardq.training.checkpoints import CheckpointWriteError
from boardq.training.run_state import RunState
from boardq_games import get_game

GAME = get_game("tictactoe")


@pytest.fixture
def state(tiny_config, tmp_path) -> RunState:
    """The run state of a new learner (train step 0) in an empty run directory."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    learner = Builder(tiny_config, GAME).make_learner()
    return RunState(learner, GAME, tiny_config, run_dir)


def test_a_new_run_starts_from_nothing_and_a_restore_reads_what_was_saved(state, tiny_config):
    assert (state.base_steps, state.base_transitions, state.base_games) == (0, 0, 0)
    assert state.base_elapsed == 0.0
    state._learner.step.assign(9)
    state.save(transitions=1234, games=56, elapsed_sec=3600.1)
    again = RunState(Builder(tiny_config, GAME).make_learner(), GAME, tiny_config, state.run_dir)
    restored = again.restore()
    restored.reader.close()
    assert (again.base_steps, again.base_transitions, again.base_games) == (9, 1234, 56)
    assert again.base_elapsed == 3600.1  # to the last bit (float32 would say 3600.10009765625)


def test_a_save_exports_the_agent_with_the_run_s_figures_and_times_itself(state):
    prefix = state.save(transitions=1234, games=56, elapsed_sec=78.5)
    assert state.store.latest() == prefix
    header, _ = read_agent(state.run_dir / AGENT_FILE)
    info = header["info"]
    assert {k: info[k] for k in ("train_step", "transitions", "elapsed_sec")} == {
        "train_step": 0,
        "transitions": 1234,
        "elapsed_sec": 78.5,
    }
    # `averaged_weights` drops the save time by this name (it is not the average's).
    assert set(info) == {
        "train_step",
        "transitions",
        "elapsed_sec",
        "saved",
        "discount",
        INFO_KEY,
        SYMMETRIC_KEY,
    }
    # Whether to play it averaged over the symmetries, as the run's ladder does.
    assert info[SYMMETRIC_KEY] is state._config.eval_symmetric
    assert isinstance(info["saved"], float)
    # The figures the run logs about its last save (docs/training.md).
    assert set(state.last_save) == {
        "checkpoint_sec",
        "checkpoint_mb",
        "checkpoint_replay_mb",
        "checkpoint_pause_sec",
    }
    assert all(isinstance(v, float) and v >= 0 for v in state.last_save.values())


def test_agents_kept_twice_are_two_files(state):
    first = state.keep_agent(transitions=10, elapsed_sec=1.0)
    second = state.keep_agent(transitions=20, elapsed_sec=2.0)  # the folder is there now
    assert first.name == "agent-000000000.npz" and first == second  # the same train step
    state._learner.step.assign(7)
    third = state.keep_agent(transitions=30, elapsed_sec=3.0)
    assert [p.name for p in state.kept_agent_files()] == [first.name, third.name]
    assert read_agent(third)[0]["info"]["transitions"] == 30


def _agent_in_the_way(state: RunState) -> None:
    (state.run_dir / AGENT_FILE).mkdir()  # the agent file cannot be written (an OSError)


def _networks_in_the_way(state: RunState) -> None:
    folder = state.store.directory
    folder.mkdir()
    (folder / "ckpt-0_temp").write_text("x")  # TensorFlow's shards cannot be written


@pytest.mark.parametrize("spoil", [_agent_in_the_way, _networks_in_the_way])
@pytest.mark.parametrize("with_ring", [True, False], ids=["replay", "no-replay"])
def test_a_save_that_cannot_write_says_why_commits_nothing_and_frees_the_ring(
    state, spoil, with_ring
):
    ring = ReplayRing(100, GAME.obs_shape, GAME.num_actions)
    spoil(state)
    extras = Extras(ring=ring.snapshot()) if with_ring else None
    with pytest.raises(CheckpointWriteError) as failed:
        state.save(transitions=1, games=1, elapsed_sec=1.0, extras=extras)
    message = str(failed.value)
    assert message.startswith("cannot write checkpoint ckpt-0 in ") and "\n" not in message
    assert message.endswith("; none was kept")
    assert state.store.latest() is None
    ring.snapshot().close()  # the failed save's snapshot ended: the next save can take one
