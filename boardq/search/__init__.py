"""The search at play and in self-play: one place for every kind.

`spec` names a search (`SearchSpec`) and builds its player (`build_player`);
`tree_player` is the best-first tree search over the network's Q-values (PUCT, no
playouts), over `tree` and `tree_node`, with proofs (`proven`) and the pass's rule
(`passing`); `alphabeta` and `negamax` are the depth-limited search; `searchers`
keeps an agent's searching players; `selfplay` is the searched game in training.
numpy only.
"""
