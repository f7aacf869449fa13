"""Players and what measures them: the agent file, search, opponents, matches, Elo, the league."""
