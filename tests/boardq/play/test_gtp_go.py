"""Go's setup and count over GTP: any komi, handicap stones fixed or free, a handicap game
with komi 0.5 end to end, `final_status_list` agreeing with `final_score` and the SGF
result, resigning."""

from __future__ import annotations

from gtp_talk import first_legal, talk

from boardq.catalog import get_game
from boardq.gtp.engine import AgentEngine
from boardq.records import from_sgf, to_sgf
from boardq_games.go import HANDICAP

GO = get_game("go")


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

    def decide(observation):  # the move and its value, as the searching players give them
        return first_legal(observation), value["v"]

    engine = AgentEngine(GO, decide, resign_below=0.1)
    for ply in range(20):  # the opening: 81 // 4 plies
        assert talk(engine, f"genmove {'bw'[ply % 2]}")[0] != "= resign"
    assert talk(engine, "genmove b") == ["= resign"]
    record = engine.record()
    assert record.result == -1 and record.result_text == "W+R"
    value["v"] = 0.5
    assert talk(engine, "genmove b")[0] not in ("= resign", "?")
    handicap = AgentEngine(GO, lambda obs: (first_legal(obs), -1.0), resign_below=0.1)
    talk(handicap, "fixed_handicap 9")
    answers = [talk(handicap, f"genmove {'wb'[p % 2]}")[0] for p in range(30)]
    assert "= resign" not in answers  # never in a handicap game


def test_go_takes_handicap_stones_fixed_or_free_and_records_them(go):
    assert talk(go, "list_commands")[0].count("handicap") == 3
    assert talk(go, "fixed_handicap 3") == ["= " + " ".join(HANDICAP[3])]
    # The stones are black's with white passing between them; white moves now.
    assert [m.vertex for m in go.moves] == ["C7", "pass", "G7", "pass", "C3"]
    assert talk(go, "play b E5", "play w E5", "undo", "undo") == [
        "? it is white's move: boardq's games alternate (play a pass first)",
        "=",
        "=",
        "? cannot undo",  # the stones stay
    ]
    assert len(go.moves) == 5
    assert talk(go, "genmove w") == ["= A9"]
    record = go.record()
    assert record.settings["handicap"] == 3
    [back] = from_sgf(to_sgf(record), "h.sgf")
    assert back.actions == record.actions and back.settings["handicap"] == 3
    assert talk(go, "fixed_handicap 2") == ["? board not empty"]
    talk(go, "clear_board")
    assert talk(go, "fixed_handicap 1", "fixed_handicap 10", "fixed_handicap x") == [
        "? invalid number of stones",
        "? invalid number of stones",
        "? syntax error: fixed_handicap not an integer",
    ]
    assert (
        talk(go, "set_free_handicap A1", "set_free_handicap A1 A1", "set_free_handicap A1 pass")
        == ["? bad vertex list"] * 3
    )
    assert go.moves == []
    assert talk(go, "set_free_handicap A1 J9 E5") == ["="]
    assert [m.vertex for m in go.moves] == ["A1", "pass", "J9", "pass", "E5"]
    sgf = talk(go, "printsgf")[0]
    assert "HA[3]" in sgf and "AB[ai][ia][ee]" in sgf  # A1 bottom left, J9 top right
    talk(go, "clear_board")
    assert talk(go, "place_free_handicap 4") == ["= " + " ".join(HANDICAP[4])]


def test_games_without_handicap_do_not_list_it():
    engine = AgentEngine(get_game("othello"), first_legal, "boardq", "test")
    assert "handicap" not in talk(engine, "list_commands")[0]
    assert talk(engine, "fixed_handicap 2") == ["? unknown command"]
