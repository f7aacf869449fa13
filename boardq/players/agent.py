"""Trained agents: load one from its file, and act greedily or with lookahead.

Loading rebuilds the network from the agent file's header (`boardq.players.agentfile`)
and checks every weight's shape.

`Agent.act` and `Agent.q_values` take `search_depth`: 0 (the default) is the network
alone, one forward pass; D >= 1 searches D plies ahead over the game's rules with the
network at the leaves (see `boardq.search.alphabeta`). They take `visits` or `move_time`
instead for the tree search (`boardq.search.tree_player`). An agent loaded with `symmetric=True`
averages the network's values over the images of the board under the game's
symmetries (the board turned and mirrored: 8 images in Gomoku, 2 in Connect Four), one
batched forward pass; the search then uses those averaged values at its leaves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardq.dqn.policies import masked_argmax
from boardq.errors import AgentFileError, BoardqError
from boardq.players.agentfile import (
    agent_file,
    chosen_symmetric,
    network_of,
    read_agent,
    read_policy,
)
from boardq.pruning import pruned_mask, prunes
from boardq.search.alphabeta import DEFAULT_DISCOUNT
from boardq.search.searchers import NoRulesError, Searchers
from boardq.search.spec import SearchSpec
from boardq.settings import NetworkConfig

__all__ = ["Agent", "NoRulesError", "NoSymmetriesError"]


class NoSymmetriesError(BoardqError, ValueError):
    """Symmetric values were asked of an agent whose game has no board symmetries."""


def _check_game_shapes(path: Path, header: dict[str, Any]) -> None:
    """A known game's agent must have that game's input and output shapes.

    Games built on the fly (`openspiel:...`, `pettingzoo:...`) are rebuilt from the name
    the header stores; one that can no longer be built is an unusable agent file.
    """
    from boardq.catalog import find_game

    try:
        known = find_game(str(header.get("game", "")))
    except BoardqError as e:
        raise AgentFileError(f"{path}: cannot rebuild its game: {e}") from None
    if known is None:
        return
    shapes = (tuple(header.get("obs_shape", ())), header.get("num_actions"))
    if shapes != (tuple(known.obs_shape), known.num_actions):
        raise AgentFileError(
            f"{path}: its network takes {shapes[0]} planes and {shapes[1]} moves, "
            f"but {known.name} has {tuple(known.obs_shape)} and {known.num_actions}: "
            "an agent of another version of the game's planes; train it again"
        )


class Agent:
    """A trained player: greedy over legal moves, or with a lookahead search.

    Use `Agent.load(path)`. `act` and `q_values` take the PettingZoo observation dict
    of the agent's game ({"observation": planes, "action_mask": mask}) and a search
    depth: 0 asks the network once; D >= 1 searches D plies (`boardq.search.alphabeta`; depth 1
    is the network's values with the exact result of every move that ends the game).

    Attributes:
      symmetries: how many images of a position the values average over (1: the
        network's values of the position as it is; see `load`'s `symmetric`).
      inference: "numpy" or "tensorflow": what computes the network's values
        (`boardq.players.forward`; `network`, the model's shape, lets numpy run it).
    """

    def __init__(
        self,
        game: str,
        model,
        info: dict[str, Any],
        path: Path | None = None,
        symmetric: bool = False,
        network: NetworkConfig | None = None,
        inference: str = "auto",
        policy: list[np.ndarray] | None = None,
    ):
        from boardq.players.forward import forward_pass, two_headed_pass

        self.game = game
        self.info = info
        self.path = path
        self._model = model
        self._forward, self.inference = forward_pass(model, network, inference)
        # With a policy head: Q and the policy's logits in one numpy pass, for the tree.
        self._two_headed = None
        if policy:
            self._two_headed = two_headed_pass(model, network, policy)
        self._symmetries: list[Any] = []
        self._pruned = None  # the game's pruned moves, where its run pruned them
        found = None
        if symmetric or prunes(info):
            from boardq.catalog import find_game

            found = find_game(game)
        if prunes(info) and found is not None:
            self._pruned = found.pruned_moves
        if symmetric:
            self._symmetries = list(found.symmetries) if found is not None else []
            if len(self._symmetries) < 2:
                raise NoSymmetriesError(
                    f"cannot average over symmetries: boardq knows none for {game!r}"
                )
        discount = float(info.get("discount", DEFAULT_DISCOUNT))
        policy_batch = self.policy_batch if policy else None
        self._searchers = Searchers(game, self.q_batch, self._pruned, discount, policy_batch)

    @property
    def has_policy(self) -> bool:
        """Whether it carries a policy head (its run trained with `--policy-head`)."""
        return self._two_headed is not None

    @property
    def symmetries(self) -> int:
        return max(1, len(self._symmetries))

    @property
    def chosen_symmetric(self) -> bool:
        """Its run's ladder chose it played with values averaged over the symmetries."""
        return chosen_symmetric(self.info)

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        symmetric: bool | None = None,
        inference: str = "auto",
    ) -> Agent:
        """Loads an exported agent file, or the one in a run directory.

        Args:
          path: an agent file, a run directory (its best-agent.npz, else agent.npz),
            or `bundled:GAME`, the agent that comes with the install for GAME.
          game: if given, the agent must be for this game.
          symmetric: average the network's values over the board's symmetries (every
            rotation and mirror image of the position that the game allows). None (the
            default): as the agent's run chose it; a best agent its ladder played
            averaged (`chosen_symmetric`, the Connect Four and Gomoku presets') plays
            averaged, any other agent plays its network alone.
          inference: "auto" (numpy on a machine without a GPU), "numpy" or
            "tensorflow": what computes the network's values (`boardq.players.forward`).

        Raises:
          AgentFileError: missing, unreadable, other game, or wrong shapes.
          NoSymmetriesError: `symmetric`, and the game has no board symmetries.
        """
        path = agent_file(path)
        header, weights = read_agent(path)
        policy = read_policy(path)[2] if header.get("policy") else None
        if game is not None and header.get("game") != game:
            raise AgentFileError(f"{path} is an agent for {header.get('game')!r}, not for {game!r}")
        _check_game_shapes(path, header)
        from boardq.dqn.networks import build_q_network

        try:
            config = network_of(header)
            model = build_q_network(header["obs_shape"], header["num_actions"], config)
        except (KeyError, TypeError, ValueError) as e:
            raise AgentFileError(f"{path} has an unreadable network header ({e})") from None
        expected = [tuple(w.shape) for w in model.weights]
        if [tuple(w.shape) for w in weights] != expected:
            raise AgentFileError(f"{path}: weights do not match the network in its header")
        model.set_weights(weights)
        info = header.get("info", {})
        if symmetric is None:
            symmetric = chosen_symmetric(info)
        return cls(header["game"], model, info, path, symmetric, config, inference, policy)

    @property
    def num_actions(self) -> int:
        return int(self._model.output_shape[-1])

    def _check(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(observation, dict):
            raise ValueError(
                "observation must be a PettingZoo dict with 'observation' and 'action_mask'"
            )
        try:
            planes = np.asarray(observation["observation"], np.int8)
            mask = np.asarray(observation["action_mask"], bool)
        except (KeyError, TypeError) as e:
            raise ValueError(
                "observation must be a PettingZoo dict with 'observation' and 'action_mask'"
            ) from e
        if planes.shape != tuple(self._model.input_shape[1:]) or mask.shape != (self.num_actions,):
            raise ValueError(
                f"observation shapes {planes.shape}, {mask.shape} do not fit this {self.game} agent"
            )
        if self._pruned is not None:
            mask = pruned_mask(self._pruned, planes[None], mask[None])[0]
        return planes, mask

    def q_batch(self, planes: np.ndarray) -> np.ndarray:
        """The network's values of a batch of positions: int8 planes [B, ...] -> [B, A].

        A symmetric agent averages, for every action, the values of that action's image
        in every image of the position (all images in one forward pass). No masking:
        callers mask illegal moves.
        """
        return self._averaged(self._forward, planes, 1)[0]

    def _averaged(self, forward, planes: np.ndarray, heads: int) -> list[np.ndarray]:
        """`forward`'s `heads` blocks of A values [B, A] each, averaged over the images.

        A symmetric agent averages, for every action, the values of that action's image
        in every image of the position (all images in one forward pass).
        """
        planes = np.asarray(planes, np.int8)
        if planes.shape[1:] != tuple(self._model.input_shape[1:]):
            raise ValueError(f"planes of shape {planes.shape} do not fit this {self.game} agent")
        A = self.num_actions
        if not self._symmetries:
            out = forward(planes)
            return [out[:, k * A : (k + 1) * A] for k in range(heads)]
        images = np.concatenate([s.planes(planes) for s in self._symmetries])
        out = forward(images).reshape(len(self._symmetries), len(planes), -1)
        # Action a of the position is action action_map[a] of the image.
        return [
            np.mean(
                [
                    out[i][:, k * A : (k + 1) * A][:, s.action_map]
                    for i, s in enumerate(self._symmetries)
                ],
                axis=0,
            )
            for k in range(heads)
        ]

    def policy_batch(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Q [B, A], the policy's logits [B, A]) of a batch of positions, one pass.

        What a tree search takes from an agent with a policy head (`has_policy`): the
        policy as its priors, its expectation of Q as a leaf's value
        (`boardq.search.tree`). A symmetric agent averages both over the images, as
        `q_batch` averages Q. No masking.

        Raises:
          ValueError: the agent has no policy head, or the planes do not fit it.
        """
        if self._two_headed is None:
            raise ValueError(f"this {self.game} agent carries no policy: trained without one")
        q, logits = self._averaged(self._two_headed, planes, 2)
        return q, logits

    def q_values(
        self,
        observation: dict,
        search_depth: int = 0,
        *,
        visits: int | None = None,
        move_time: float | None = None,
    ) -> np.ndarray:
        """One value per action, from the player to move's view; NaN for illegal moves.

        Args:
          observation: the PettingZoo observation dict of the player to move.
          search_depth: 0 for the network's values; D >= 1 for the values of a
            D-ply search (+1 a win now, 0 a draw now, discounted per move).
          visits: instead, the mean values of a tree search of that many visits a
            move (`searcher`).
          move_time: or of a tree search of that many seconds a move.
        """
        planes, mask = self._check(observation)
        search = SearchSpec.of(search_depth, move_time, visits)
        if search.searches:
            return self.player(search).q_values(observation)
        q = self.q_batch(planes[None])[0].astype(np.float64)
        q[~mask] = np.nan
        return q

    def act(
        self,
        observation: dict,
        search_depth: int = 0,
        *,
        visits: int | None = None,
        move_time: float | None = None,
    ) -> int:
        """The legal move with the highest value (network or search, see `q_values`).

        With `visits` or `move_time`, the tree search's move (the most visited).
        """
        planes, mask = self._check(observation)
        search = SearchSpec.of(search_depth, move_time, visits)
        if search.searches:
            return self.player(search).act(observation)
        q = self.q_batch(planes[None])[0]
        return int(masked_argmax(q, mask))

    def player(self, search: SearchSpec):
        """The agent playing with `search` (kept for reuse): itself for the network alone.

        A tree search (`boardq.search.tree_player.TreeSearchPlayer`) keeps its tree between
        the moves of a game; the alpha-beta is `boardq.search.alphabeta.SearchPlayer`.
        Both are built by `boardq.search.spec.build_player`.

        Raises:
          ValueError: a search for a game whose rules boardq does not know.
        """
        return self._searchers.get(search) if search.searches else self

    def searcher(
        self,
        depth: int | None = None,
        move_time: float | None = None,
        visits: int | None = None,
    ):
        """The searching player of exactly one of `depth`, `move_time` or `visits`.

        `depth` D: the alpha-beta to D plies; `visits` N or `move_time` SEC: the tree
        search (`SearchSpec.of` says how the three values name a search; `player`).

        Raises:
          ValueError: not exactly one of them, a bad one, or a game whose rules boardq
            does not know.
        """
        if len([x for x in (depth, move_time, visits) if x is not None]) != 1:
            raise ValueError("a search needs one of a depth, visits or a time per move")
        if depth is not None:
            return self.player(SearchSpec.alpha_beta(depth=depth))
        return self.player(SearchSpec.of(None, move_time, visits))

    def alpha_beta(self, depth: int | None = None, move_time: float | None = None):
        """The alpha-beta `boardq.search.alphabeta.SearchPlayer` of this agent (kept for reuse).

        It searches `depth` plies, or as deep as `move_time` seconds a move allow
        (iterative deepening: kept for comparisons with the tree search).
        """
        return self.player(SearchSpec.alpha_beta(depth, move_time))

    def weights(self) -> list[np.ndarray]:
        return self._model.get_weights()
