"""A game on the browser board's server, for the web tests (`pythonpath` in pyproject.toml
puts this folder on the import path).
"""

from __future__ import annotations


def plays_a_correct_game(client) -> None:
    """A new game, your move in the top left corner, the agent's reply in the centre."""
    state = client.start()
    after = client.ok("POST", f"/api/sessions/{state['session']}/move", {"action": 0})
    assert [m["action"] for m in after["moves"]] == [0, 4]
    assert after["board"][0][0] == 0 and after["board"][1][1] == 1
