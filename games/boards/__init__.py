"""Pure game rules on numpy boards, one module per game, all with the same interface."""
