"""Go's pure rules (games/go/rules.py) against PettingZoo's go-v5 and OpenSpiel's go: known
positions (captures, suicide, ko, the count with dead stones on the board) and random games,
on 9x9 and other sizes."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from boardq.game import load_pyspiel
from boardq_games import get_game
from boardq_games.env_check import random_games, reward_differences, rules_differences
from boardq_games.go import spiel_go
from boardq_games.go.env import make_go_env
from boardq_games.go.rules import COLOUR, KO, PASSES, GoRules
from boardq_games.spiel_check import spiel_differences

GAME = get_game("go")
RULES = GAME.rules
PASS = 81
ANY = np.ones(82, bool)


def point(name: str) -> int:
    return GAME.text.parse(name, ANY)


def placing(black: list[str], white: list[str]) -> list[int]:
    """Moves that put these stones down in turn, a side with none left passing.

    Never two passes in a row, so the game goes on.
    """
    moves = []
    for k in range(max(len(black), len(white))):
        moves.append(point(black[k]) if k < len(black) else PASS)
        moves.append(point(white[k]) if k < len(white) else PASS)
    return moves


def column(letter: str) -> list[str]:
    return [f"{letter}{row}" for row in range(1, 10)]


def sized(size: int, komi: float):
    """boardq's Go game at another size (its rules, env and OpenSpiel mirror)."""
    return dataclasses.replace(
        GAME,
        obs_shape=(size, size, 4),
        num_actions=size * size + 1,
        rules=GoRules(size, komi),
        env_maker=functools.partial(make_go_env, size, komi),
        openspiel=spiel_go(size, komi),
    )


class Replayed:
    """The same moves in the rules, in go-v5 and in OpenSpiel."""

    def __init__(self, moves: list[int], game=GAME) -> None:
        self.game, self.rules = game, game.rules
        self.env = game.make_env()
        self.env.reset(seed=0)
        self.position = self.rules.board_from_planes(*self._observed())
        self.state = load_pyspiel().load_game(game.openspiel.name).new_initial_state()
        for action in moves:
            self.play(action)

    def _observed(self):
        observation = self.env.observe(self.env.agent_selection)
        return observation["observation"], np.asarray(observation["action_mask"], bool)

    def play(self, action: int) -> None:
        self.position = self.rules.apply(self.position, action)
        self.env.step(action)
        self.state.apply_action(self.game.openspiel.actions[action])

    def legal(self) -> np.ndarray:
        """The rules' legal moves, after checking them against go-v5's and OpenSpiel's."""
        ours = self.rules.legal_mask(self.position)
        assert np.array_equal(ours, self._observed()[1])
        spiel = np.zeros_like(ours)
        spiel[[self.game.openspiel.actions.index(a) for a in self.state.legal_actions()]] = True
        assert np.array_equal(ours, spiel)
        return ours

    def board(self) -> np.ndarray:
        """The rules' board (+1 black), after checking it against go-v5's."""
        board = self.rules.board(self.position)
        assert np.array_equal(board, self.env.unwrapped._go.board)
        return board

    def first_player_result(self) -> int:
        """+1 black won, -1 white won, after checking the three agree on it."""
        over = self.env.terminations[self.env.agent_selection]
        assert self.rules.over(self.position) == over == self.state.is_terminal()
        seat = 0 if self.position[COLOUR] == 0 else 1
        result = self.rules.winner(self.position) * (1 if seat == 0 else -1)
        rewards = [self.env.rewards[agent] for agent in self.env.possible_agents]
        assert rewards == [result, -result]
        assert np.sign(self.state.returns()[0]) == result
        return result


def test_the_first_position_is_the_empty_board_black_to_move():
    replayed = Replayed([])
    np.testing.assert_array_equal(replayed.position, RULES.start())
    assert replayed.legal().all() and replayed.position[KO] == -1
    assert RULES.planes_from_board(RULES.start()).shape == (9, 9, 8)


def test_a_corner_stone_is_captured_and_its_point_is_suicide_for_it():
    replayed = Replayed(placing(["A1", "J9"], ["B1", "A2"]))  # A2 takes A1's last liberty
    assert replayed.board()[8, 0] == 0 and replayed.board()[8, 1] == replayed.board()[7, 0] == -1
    legal = replayed.legal()  # black to move: A1 would have no liberty and capture nothing
    assert not legal[point("A1")] and legal[point("B2")]


def test_a_group_is_captured_whole():
    black = ["C3", "D3", "J9", "J8", "J7", "J6"]
    white = ["B3", "E3", "C2", "D2", "C4", "D4"]
    replayed = Replayed(placing(black, white))
    board = replayed.board()
    assert board[6, 2] == board[6, 3] == 0  # C3 and D3 are gone
    assert replayed.legal()[point("C3")]  # black may play back in: it touches empty D3


def test_a_point_with_no_empty_neighbour_is_legal_when_the_stone_captures():
    # White's B1 has one liberty, A1; black's stone there touches no empty point but takes B1.
    replayed = Replayed(placing(["A2", "B2", "C1"], ["B1", "J9", "J8"]))
    assert replayed.legal()[point("A1")]
    replayed.play(point("A1"))
    assert replayed.board()[8, 1] == 0 and replayed.board()[8, 0] == 1


# A ko on the left edge: black's D4 takes white's C4, which would retake D4 at once.
KO_SHAPE = placing(["B4", "C5", "C3", "J9"], ["D5", "E4", "D3", "C4"])


def test_the_ko_point_cannot_be_retaken_at_once():
    replayed = Replayed([*KO_SHAPE, point("D4")])
    assert replayed.board()[5, 2] == 0  # C4 (row 4 from the bottom) is captured
    assert replayed.position[KO] == point("C4")
    legal = replayed.legal()  # white to move
    assert not legal[point("C4")] and legal[PASS]
    with pytest.raises(ValueError, match="ko point"):
        RULES.apply(replayed.position, point("C4"))


def test_the_ko_can_be_retaken_after_a_move_elsewhere_or_a_pass():
    for elsewhere in (point("A9"), PASS):
        replayed = Replayed([*KO_SHAPE, point("D4"), elsewhere, point("H1")])
        assert replayed.position[KO] == -1 and replayed.legal()[point("C4")]
        replayed.play(point("C4"))  # takes D4 back: the ko is now black's to wait on
        assert replayed.position[KO] == point("D4") and not replayed.legal()[point("D4")]


def test_the_ko_point_is_read_from_the_legal_moves():
    replayed = Replayed([*KO_SHAPE, point("D4")])
    planes, legal = replayed._observed()
    assert RULES.board_from_planes(planes, legal)[KO] == point("C4")
    assert RULES.board_from_planes(planes)[KO] == -1  # without them: no ko known
    np.testing.assert_array_equal(RULES.planes_from_board(replayed.position), planes)


def test_two_passes_end_the_game_and_the_passes_are_in_the_planes():
    replayed = Replayed([point("E5"), PASS])
    assert replayed.position[PASSES] == 1 and RULES.planes_from_board(replayed.position)[0, 0, 3]
    assert not RULES.over(replayed.position)
    replayed.play(PASS)
    assert RULES.over(replayed.position)
    assert replayed.first_player_result() == 1  # black's one stone holds the whole board
    assert RULES.score(replayed.position) == 81 - 7.5
    assert RULES.legal_mask(replayed.position).tolist() == [False] * 81 + [True]
    with pytest.raises(ValueError, match="over"):
        RULES.apply(replayed.position, PASS)


# Walls split the board; some stones are dead in the other side's area. Each entry:
# black's stones, white's, the dead ones, who wins with the dead stones taken off (as a
# person counts) and who wins with every stone counted alive (go-v5, OpenSpiel, the rules).
DEAD_STONES = {
    # Black holds A-E (45 points), white F-J (36): black wins by 1.5 with white's dead
    # B2 and B8 taken off; left on, they make A-D no one's and white wins.
    "white stones dead in black's area": (
        column("E"),
        [*column("F"), "B2", "B8"],
        ["B2", "B8"],
        1,
        -1,
    ),
    # Black holds A-D (36), white E-J (45): white wins by 16.5 with black's dead H5
    # taken off; left on, it makes F-J no one's and black wins.
    "a black stone dead in white's area": ([*column("D"), "H5"], column("E"), ["H5"], -1, 1),
}


@pytest.mark.parametrize("name", list(DEAD_STONES))
def test_dead_stones_count_as_alive_as_both_engines_count_them(name):
    black, white, dead, by_a_person, counted = DEAD_STONES[name]
    replayed = Replayed(placing(black, white))
    while not RULES.over(replayed.position):
        replayed.play(PASS)
    board = replayed.board()
    assert replayed.first_player_result() == counted  # the rules, go-v5 and OpenSpiel
    assert np.sign(RULES.area_margin(board)) == counted
    cleared = board.reshape(-1).copy()
    cleared[[point(name) for name in dead]] = 0
    assert np.sign(RULES.area_margin(cleared)) == by_a_person


def test_a_tie_is_whites_as_go_v5_counts_it():
    game = sized(4, 0.0)
    rules = game.rules
    env = game.make_env()
    env.reset(seed=0)
    position = rules.board_from_planes(env.observe(env.agent_selection)["observation"])
    # Black walls off the first two columns, white the last two: 8 points each, komi 0.
    for action in (1, 2, 5, 6, 9, 10, 13, 14, 16, 16):
        position = rules.apply(position, action)
        env.step(action)
    assert rules.over(position) and rules.score(position) == 0
    assert rules.winner(position) == -1  # black, to move, has lost
    assert [env.rewards[a] for a in env.possible_agents] == [-1, 1]


@pytest.mark.parametrize(
    "planes, legal, message",
    [
        (np.zeros((9, 9, 3)), None, "planes of shape"),
        (np.zeros((9, 9, 8)), np.ones(81, bool), "82 legal moves"),
        (np.zeros((9, 9, 8)), np.r_[np.ones(81, bool), False], "do not fit"),
    ],
)
def test_bad_planes_or_legal_moves_are_refused(planes, legal, message):
    with pytest.raises(ValueError, match=message):
        RULES.board_from_planes(planes, legal)


def test_legal_moves_that_allow_a_taken_point_are_refused():
    position = RULES.apply(RULES.start(), point("E5"))
    planes = RULES.planes_from_board(position)
    with pytest.raises(ValueError, match="do not fit"):
        RULES.board_from_planes(planes, ANY)


@pytest.mark.parametrize(
    "action, message", [(point("E5"), "taken"), (-1, "outside"), (82, "outside")]
)
def test_illegal_moves_are_refused(action, message):
    with pytest.raises(ValueError, match=message):
        RULES.apply(RULES.apply(RULES.start(), point("E5")), action)


def test_a_position_of_another_size_is_refused():
    with pytest.raises(ValueError, match="9x9 Go position"):
        RULES.legal_mask(GoRules(7, 7.5).start())
    with pytest.raises(ValueError, match="at least 2"):
        GoRules(1, 7.5)


# -- random games --------------------------------------------------------------------
def go_board_of_state(size: int):
    def board(state) -> np.ndarray:
        tensor = np.asarray(state.observation_tensor(0)).reshape(4, size, size)
        return np.flipud(tensor[0] - tensor[1]).astype(np.int8)

    return board


@pytest.mark.parametrize(
    "size, komi, count", [(9, 7.5, 16), (5, 0.0, 40), (7, 2.5, 12), (13, 6.5, 2)]
)
def test_random_games_match_go_v5(size, komi, count):
    game = GAME if size == 9 else sized(size, komi)
    games = random_games(game, count, seed=size)
    assert rules_differences(game, games) == []
    assert reward_differences(game, games) == []


@pytest.mark.parametrize(
    "size, komi, count", [(9, 7.5, 200), (5, 3.5, 300), (7, 0.5, 100), (19, 7.5, 3)]
)
def test_random_games_match_openspiel(size, komi, count):
    game = GAME if size == 9 else sized(size, komi)
    seen = spiel_differences(
        game, count, seed=1, boards=(game.rules.board, go_board_of_state(size))
    )
    assert seen.differences == []
    assert seen.games == count and min(seen.first_wins, seen.second_wins) > 0


@pytest.mark.slow
def test_a_thousand_random_games_match_go_v5():
    games = random_games(GAME, 1000, seed=1000)
    assert rules_differences(GAME, games) == []
    assert sum(len(g.moves) for g in games) > 100_000


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel():
    seen = spiel_differences(GAME, 1000, seed=1000, boards=(RULES.board, go_board_of_state(9)))
    assert seen.differences == [] and seen.games == 1000
