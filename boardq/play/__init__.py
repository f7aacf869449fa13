"""A person playing: the game session, a match between two players, the terminal."""
