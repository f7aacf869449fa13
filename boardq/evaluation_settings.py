"""The evaluation settings: how a run rates its snapshots while it trains.

The evaluation ladder (`boardq.training.ladder`) plays a snapshot against these
opponents every few minutes in a low-priority process, and keeps the best agent by
its scores. `TrainConfig` extends this class, so they are fields of the one flat record
that the command line, config.json and the presets share.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardq.settings import NOT_NEGATIVE, POSITIVE, setting

__all__ = ["EvaluationSettings"]


@dataclass(frozen=True)
class EvaluationSettings:
    """The settings of the "evaluation" group (`boardq.settings.GROUPS`)."""

    eval_ladder: str = setting(
        "random",
        group="evaluation",
        help="opponents of the evaluation during training, comma-separated, as boardq "
        "evaluate names them (random, winblock, perfect, mcts:N, agent:PATH, gtp:COMMAND; "
        "a player with a comma in double quotes; empty: none)",
    )
    eval_every_sec: float = setting(
        30.0,
        group="evaluation",
        check=POSITIVE,
        help="seconds between the starts of evaluations during training",
    )
    eval_games: int = setting(
        50,
        group="evaluation",
        check=NOT_NEGATIVE,
        help="games per seat and opponent in each evaluation (0: none)",
    )
    eval_handicap: int = setting(
        0,
        group="evaluation",
        check=NOT_NEGATIVE,
        help="handicap stones the agent takes as black in the evaluation's games, its "
        "opponents passing while they are placed (evaluate --handicap; Go: 2-9; 0: even). "
        "As white it plays even games",
    )
    eval_symmetric: bool = setting(
        False,
        group="evaluation",
        help="the evaluation plays the agent with its values averaged over the board's "
        "symmetries (evaluate --symmetric), so the best agent is the best that way",
    )
    eval_visits: int = setting(
        0,
        group="evaluation",
        check=NOT_NEGATIVE,
        help="the evaluation plays the agent with a tree search of N visits a move "
        "(evaluate --visits N; games with rules), so the best agent is the best searching "
        "that way (0: its network alone)",
    )
    eval_average_agents: int = setting(
        0,
        group="evaluation",
        check=NOT_NEGATIVE,
        help="the evaluation rates the mean of the weights of the last N agents the run "
        "kept (stochastic weight averaging), once per newly kept agent, so the best agent "
        "is such a mean (0: the newest weights)",
    )
