"""GTP, the Go Text Protocol: the agent as an engine, and engines as players.

`protocol` parses commands and formats answers; `engine` answers a controller's
commands (with `clock`, `analysis`, `stream`, `game`, `go`, `gogui`, `views`);
`client` and `player` drive another engine (GNU Go, GRhino) as an opponent.
"""
