"""The learning machinery: transitions, replay, actors, the learner and what feeds it."""
