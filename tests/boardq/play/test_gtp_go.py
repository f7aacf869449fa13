"""Go's setup and count over GTP: any komi, a handicap game with komi 0.5 end to end,
`final_status_list` agreeing with `final_score` and the SGF result, resigning."""

from __future__ import annotations

import numpy as np

from boardq.catalog import get_game
from boardq.play.gtp_engine import AgentEngine
from boardq.records import from_sgf, to_sgf

GO = get_game("go")


def first_legal(observation) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def talk(engine: AgentEngine, *lines: str) -> list[str]:
    return [engine.answer(line).removesuffix("\n\n") for line in lines]


def test_any_komi_is_taken_and_counted_and_said_once(capsys):
    engine = AgentEngine(GO, first_legal)
    assert talk(engine, "komi 6.5", "final_score") == ["=", "= W+6.5"]
    talk(engine, "play b E5")
    assert talk(engine, "final_score") == ["= B+74.5"]  # 81 - 6.5
    assert talk(engine, "komi -3", "final_score") == ["=", "= B+84"]  # mid-game: recounted
    assert talk(engine, "komi 7.5", "komi 0.5") == ["=", "="]
    said = capsys.readouterr().err
    assert said.count("learnt Go with komi 7.5") == 1 and "komi 6.5" in said


def test_a_handicap_game_with_komi_half_a_point_end_to_end():
    engine = AgentEngine(GO, first_legal)
    assert talk(engine, "boardsize 9", "clear_board", "komi 0.5") == ["=", "=", "="]
    assert talk(engine, "fixed_handicap 2") == ["= G7 C3"]
    assert talk(engine, "genmove w") == ["= A9"]
    assert talk(engine, "play b pass", "play w pass") == ["=", "="]
    assert engine.match.over
    # By Tromp-Taylor the empty points touch both colours: each counts its stones.
    black, white = 2, 1
    assert talk(engine, "final_score") == [f"= B+{black - white - 0.5:g}"]
    record = engine.record()
    assert record.settings["komi"] == 0.5 and record.settings["handicap"] == 2
    sgf = to_sgf(record)
    assert b"KM[0.5]" in sgf and b"HA[2]" in sgf and b"RE[B+0.5]" in sgf
    [back] = from_sgf(sgf, "h.sgf")
    assert back.actions == record.actions and back.settings["komi"] == 0.5
    assert back.result_text == f"B+{black - white - 0.5:g}"  # counted with the file's komi


def test_final_status_list_agrees_with_the_count():
    engine = AgentEngine(GO, first_legal)
    talk(engine, "play b E5", "play w D5", "play b E4", "play w pass", "play b pass")
    assert talk(engine, "final_status_list dead", "final_status_list seki") == ["=", "="]
    [alive] = talk(engine, "final_status_list alive")
    assert sorted(alive.removeprefix("= ").split()) == ["D5", "E4", "E5"]
    # Every stone alive, the empty points touching both colours: 2 - 1 - 7.5.
    assert talk(engine, "final_score") == ["= W+6.5"]
    assert engine.record().result_text == "W+6.5"
    assert talk(engine, "final_status_list") == [
        "? syntax error: final_status_list takes dead, alive or seki"
    ]


def test_resigning_only_when_lost_and_past_the_opening():
    value = {"v": -0.9}
    engine = AgentEngine(GO, first_legal, value=lambda obs, a: value["v"], resign_below=0.1)
    for ply in range(20):  # the opening: 81 // 4 plies
        assert talk(engine, f"genmove {'bw'[ply % 2]}")[0] != "= resign"
    assert talk(engine, "genmove b") == ["= resign"]
    record = engine.record()
    assert record.result == -1 and record.result_text == "W+R"
    value["v"] = 0.5
    assert talk(engine, "genmove b")[0] not in ("= resign", "?")
    handicap = AgentEngine(GO, first_legal, value=lambda obs, a: -1.0, resign_below=0.1)
    talk(handicap, "fixed_handicap 9")
    answers = [talk(handicap, f"genmove {'wb'[p % 2]}")[0] for p in range(30)]
    assert "= resign" not in answers  # never in a handicap game
