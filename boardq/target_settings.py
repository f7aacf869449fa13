"""The settings of what the learner's targets are.

Returns, their discount and trace, the regularized policy a policy head learns
(`NetworkConfig.policy_head`), and the auxiliary targets of a finished game's count
(`ownership_targets`). Part of the "algorithm" group. `TrainConfig` extends
this class, so they are fields of the one flat record that the command line,
config.json and the presets share.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardq.settings import AT_LEAST_1, NOT_NEGATIVE, UNIT, setting

__all__ = ["RETURNS", "TargetSettings"]

RETURNS = ("plain", "watkins")
"""The `returns` setting's choices: the rules of `boardq.dqn.returns`."""


@dataclass(frozen=True)
class TargetSettings:
    """How the Q-network's targets are formed (`boardq.dqn.transitions`, `losses`)."""

    discount: float = setting(0.99, group="algorithm", check=UNIT, help="discount per move (gamma)")
    n_step: int = setting(
        1, group="algorithm", check=AT_LEAST_1, help="moves per return before bootstrapping"
    )
    returns: str = setting(
        "plain",
        group="algorithm",
        check=(lambda v: v in RETURNS, f"must be one of {', '.join(RETURNS)}"),
        choices=tuple(RETURNS),
        help="where an n-step return stops: plain sums all n moves, exploring ones "
        "included; watkins stops before the first move either player makes that is not "
        "the network's greedy move and bootstraps there (Watkins's Q(lambda) cut at n "
        "moves; docs/results/training.md#multi-step-returns-that-stop-at-exploring-moves)",
    )
    td_lambda: float = setting(
        1.0,
        group="algorithm",
        check=UNIT,
        help="lambda of the lambda-return over the n_step moves: the k-move returns mixed "
        "by (1 - lambda) lambda^(k-1), the positions within valued by the acting network "
        "(1: the plain n-step return; 0: one-step targets; KLENT takes 0.88 with long "
        "returns; boardq.dqn.lambda_returns)",
    )
    bootstrap_epsilon: float = setting(
        0.0,
        group="algorithm",
        check=UNIT,
        help="share of random moves the TD target assumes of the next player (0: its best "
        "move, Double DQN; more: prefer positions that give a weaker opponent chances "
        "to go wrong)",
    )
    policy_alpha: float = setting(
        0.03,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="entropy weight alpha of the policy head's target pi' proportional to "
        "exp((Q + beta log pi_old) / (alpha + beta)) (with --policy-head; KLENT's 0.03)",
    )
    policy_beta: float = setting(
        0.1,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="weight beta of the reverse KL to the previous policy in pi' (with "
        "--policy-head; KLENT's 0.1; 0: pi' = softmax(Q / alpha))",
    )
    ownership_targets: bool = setting(
        False,
        group="algorithm",
        help="train the network's torso also towards each point's final owner and the "
        "final area lead of the game a position is from, by two heads beside the Q head "
        "that play and agent files leave out (KataGo's auxiliary targets; go only; "
        "boardq.dqn.ownership)",
    )
    ownership_weight: float = setting(
        1.5,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="weight of the ownership head's loss, the mean over the board's points of "
        "0.5 (owner - prediction)^2 (with --ownership-targets; KataGo's 1.5)",
    )
    score_weight: float = setting(
        0.5,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="weight of the score head's loss, 0.5 (lead - prediction)^2, the lead the "
        "mover's final area margin over the board's points (with --ownership-targets)",
    )
