"""Analysis for the Go GUIs: the `info` lines as Sabaki and Lizzie read them, streamed
until the next command.

`sabaki_parse` follows Sabaki's `parseAnalysis` (src/modules: entries split on `info`,
the line of vertices at the end, key-value pairs before `pv`, integer win rates in
ten-thousandths, floats 0..1), `lizzie_parse` Lizzie's `MoveData.fromInfo` (the line
without its first "info ", split on " info ", words split on single spaces,
`Integer.parseInt` of visits and win rate). Neither is on npm or PyPI, so they are
written out here from their code.
"""

from __future__ import annotations

import os
import re
import threading
import time

import numpy as np
import pytest
from gtp_talk import Piped

from boardq.catalog import get_game
from boardq.gtp.analysis import (
    NetworkAnalysis,
    info_line,
    parse_request,
)
from boardq.gtp.engine import AgentEngine
from boardq.gtp.protocol import GtpSyntaxError
from boardq.search.tree_player import MoveStats

GO = get_game("go")


def sabaki_parse(line: str) -> list[dict]:
    """Sabaki's parseAnalysis, without its board (vertices kept as text)."""
    out = []
    for entry in re.split(r"\s*info\s+", line)[1:]:
        entry = entry.strip()
        pv = re.search(r"(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*$", entry)
        if pv is None:
            continue
        tokens = entry[: pv.start()].strip().split()[:-1]
        line_moves = pv[0][: pv[0].find("pass")] if "pass" in pv[0] else pv[0]
        fields = dict(zip(tokens[0::2], tokens[1::2], strict=True))
        if not re.fullmatch(r"[A-Za-z]\d+", fields["move"]):
            continue
        rate = fields["winrate"]
        out.append(
            {
                "move": fields["move"],
                "visits": int(fields["visits"]),
                "winrate": float(rate) * 100 if "." in rate else int(rate) / 100,
                "pv": [m for m in line_moves.split() if len(m) >= 2],
            }
        )
    return out


def lizzie_parse(line: str) -> list[dict]:
    """Lizzie's reading of an lz-analyze line (Leelaz.java, MoveData.fromInfo)."""
    out = []
    payload = line.removeprefix("info ")  # the line's own "info ", then one per entry
    for entry in payload.split(" info "):
        data = entry.strip().split(" ")
        move: dict = {}
        i = 0
        while i < len(data):
            key = data[i]
            if key == "pv":
                move["pv"] = data[i + 1 :]
                break
            i += 1
            value = data[i]
            if key == "move":
                move["move"] = value
            elif key == "visits":
                move["visits"] = int(value)  # Integer.parseInt: no "1.0"
            elif key == "winrate":
                move["winrate"] = int(value) / 100.0
            i += 1
        out.append(move)
    return out


LINES = [
    MoveStats(40, 836, 0.2, 0.0839, (40, 30, 31)),
    MoveStats(30, 12, -0.5, 0.5, (30,)),
]


def test_lz_lines_are_read_by_sabaki_and_lizzie_alike():
    line = info_line(LINES, GO.gtp.vertex, floats=False)
    assert line.startswith("info move E5 visits 836 winrate 6000 prior 839 lcb 5661 order 0 pv")
    for parse in (sabaki_parse, lizzie_parse):
        moves = parse(line)
        assert [m["move"] for m in moves] == ["E5", "D6"]
        assert [m["visits"] for m in moves] == [836, 12]
        assert [m["winrate"] for m in moves] == [60.0, 25.0]  # percent
        assert moves[0]["pv"] == ["E5", "D6", "E6"]


def test_the_lower_confidence_bound_by_hand():
    """The win rate less 2 standard errors of a mean of `visits` values whose spread is
    at most sqrt(p (1 - p)) (a mean p of values in 0..1); a proven move's is exact."""
    line = info_line(LINES, GO.gtp.vertex, floats=True)
    # 0.6 - 2 sqrt(0.24 / 836) = 0.56611; 0.25 - 2 sqrt(0.1875 / 12) = 0: at least 0.
    assert "lcb 0.5661 order 0" in line and "lcb 0.0000 order 1" in line
    proven = [MoveStats(40, 3, 0.99, 0.5, (40,), proven=True)]
    assert "winrate 0.9950 prior 0.5000 lcb 0.9950" in info_line(proven, GO.gtp.vertex, True)


def test_only_the_moves_the_search_visited_are_listed():
    """As Leela Zero and KataGo list them: a move not visited has no win rate of the
    search's to show (its value would be the network's); a proven one has its proof's."""
    moves = [
        MoveStats(40, 5, 0.2, 0.3, (40,)),
        MoveStats(30, 0, 0.9, 0.3, (30,)),  # unvisited: the network's value alone
        MoveStats(31, 0, 1.0, 0.1, (31,), proven=True),  # a win found without a visit
    ]
    entries = info_line(moves, GO.gtp.vertex, floats=False).split("info ")[1:]
    assert [e.split()[1] for e in entries] == ["E5", "E6"]
    assert "winrate 10000 prior 1000 lcb 10000 order 1 pv E6" in entries[1]


def test_kata_lines_are_floats_that_sabaki_reads():
    line = info_line(LINES, GO.gtp.vertex, floats=True)
    assert "winrate 0.6000 prior 0.0839" in line
    assert [m["winrate"] for m in sabaki_parse(line)] == pytest.approx([60.0, 25.0])


def test_requests_as_the_guis_send_them():
    lz = parse_request("lz-analyze", ["50"])
    assert (lz.seat, lz.interval, lz.style.floats) == (None, 0.5, False)
    kata = parse_request(
        "kata-analyze", ["B", "interval", "20", "maxmoves", "5", "ownership", "true"]
    )
    assert (kata.seat, kata.interval, kata.max_moves, kata.style.floats) == (0, 0.2, 5, True)
    assert parse_request("analyze", ["white", "100"]).seat == 1
    for name, args in [
        ("lz-analyze", ["9" * 5000]),
        ("kata-analyze", ["b", "avoid", "b"]),
        ("lz-genmove_analyze", ["50"]),  # a genmove needs its colour
        ("lz-analyze", ["b", "maxmoves"]),
    ]:
        with pytest.raises(GtpSyntaxError):
            parse_request(name, args)


def test_the_networks_analysis_ranks_the_legal_moves_and_plays_its_lines_out():
    # A stand-in network that likes the points near the top-left corner best.
    def q_batch(planes):
        return np.tile(np.linspace(1, -1, 82), (len(planes), 1))

    analysis = NetworkAnalysis(q_batch, GO.rules)
    engine = AgentEngine(GO, lambda obs: 0)
    engine.answer("play b A9")
    moves = analysis(engine.match.observation())
    assert [m.action for m in moves][:3] == [1, 2, 3]  # A9 is taken
    assert sum(m.prior for m in moves) <= 1 and moves[0].prior > moves[1].prior
    assert moves[0].pv[:3] == (1, 2, 3)  # each side's best move in turn
    assert all(m.visits == 1 for m in moves)


def stand_in_engine() -> AgentEngine:
    def analyse(observation, seconds):
        legal = np.flatnonzero(observation["action_mask"])[:3]
        return [MoveStats(int(a), 1, 0.0, 1 / 3, (int(a),)) for a in legal]

    return AgentEngine(GO, lambda obs: int(np.flatnonzero(obs["action_mask"])[0]), analyse=analyse)


def test_an_analysis_is_answered_then_streamed_and_listed():
    engine = stand_in_engine()
    listed = engine.answer("list_commands")
    for name in ("lz-analyze", "analyze", "kata-analyze", "lz-genmove_analyze", "genmove_analyze"):
        assert f"\n{name}\n" in listed or listed.endswith(f"\n{name}\n\n")
    assert engine.answer("7 lz-analyze b 10") == (
        "=7\ninfo move A9 visits 1 winrate 5000 prior 3333 lcb 0 order 0 pv A9 "
        "info move B9 visits 1 winrate 5000 prior 3333 lcb 0 order 1 pv B9 "
        "info move C9 visits 1 winrate 5000 prior 3333 lcb 0 order 2 pv C9\n\n"
    )
    assert engine.answer("lz-analyze w 10") == "? it is black's move\n\n"
    answer = engine.answer("lz-genmove_analyze b 10")
    assert answer.startswith("=\ninfo move A9 ") and answer.endswith("\nplay A9\n\n")
    assert [m.vertex for m in engine.moves] == ["A9"]


def test_the_stream_runs_until_the_next_command_and_then_answers_it():
    """Through `run` on a pipe: lines come every interval; a command ends them at once."""
    engine = stand_in_engine()
    read_fd, write_fd = os.pipe()
    out_read, out_write = os.pipe()
    stdin, stdout = os.fdopen(read_fd, "r"), os.fdopen(out_write, "w")
    runner = threading.Thread(target=engine.run, args=(stdin, stdout), daemon=True)
    runner.start()
    commands = os.fdopen(write_fd, "w")
    answers = os.fdopen(out_read, "r")
    commands.write("lz-analyze b 5\n")
    commands.flush()
    lines = [answers.readline() for _ in range(4)]  # "=", then a line every 0.05 s
    assert lines[0] == "=\n" and all(line.startswith("info move A9 ") for line in lines[1:])
    commands.write("1 name\n")
    commands.flush()
    rest = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rest.append(answers.readline())
        if rest[-1] == "=1 boardq\n":
            break
    assert rest[-1] == "=1 boardq\n"
    assert rest[-2] == "\n" and all(r.startswith("info ") for r in rest[:-2])  # the end
    commands.write("quit\n")
    commands.close()
    runner.join(timeout=30)
    assert not runner.is_alive()


def test_a_failing_analysis_is_answered_and_the_engine_goes_on(capsys):
    def broken(observation, seconds):
        raise RuntimeError("no tree")

    engine = AgentEngine(GO, lambda obs: int(np.flatnonzero(obs["action_mask"])[0]), analyse=broken)
    assert engine.answer("lz-analyze b 10") == "? internal error: no tree\n\n"
    assert engine.answer("kata-analyze 10") == "? internal error: no tree\n\n"
    assert engine.answer("genmove_analyze b 10") == "=\nplay A9\n\n"  # the move is made
    assert "no tree" in capsys.readouterr().err
    assert engine.answer("name") == "= boardq\n\n"


GENMOVES = ["lz-genmove_analyze", "kata-genmove_analyze", "genmove_analyze"]


@pytest.mark.parametrize("name", GENMOVES)
def test_a_genmove_analyze_whose_agent_fails_is_answered_and_the_engine_goes_on(name, capsys):
    """Any error of the agent's (not only the engine's own) is a `?`; no move is made,
    no resignation recorded, and the next command is answered."""

    def broken(observation):
        raise RuntimeError("no network")

    engine = stand_in_engine()
    engine.act = broken
    assert engine.answer(f"{name} b 10") == "? internal error: no network\n\n"
    assert engine.moves == [] and engine.resigned is None
    assert engine.record().result is None
    assert "no network" in capsys.readouterr().err
    assert engine.answer("play b E5") == "=\n\n"


@pytest.mark.parametrize("name", GENMOVES)
def test_a_genmove_analyze_of_an_illegal_move_is_refused_not_a_silent_resignation(name):
    engine = stand_in_engine()
    engine.answer("play b A9")
    engine.answer("play w B9")
    engine.act = lambda observation: 0  # A9: taken
    assert engine.answer(f"{name} b 10") == "? the agent chose A9, which is illegal\n\n"
    assert len(engine.moves) == 2 and engine.resigned is None


def test_a_genmove_analyze_that_fails_through_the_loop_leaves_the_engine_alive():
    """Through `run` on a pipe, as a GUI talks to it: the loop answers on."""

    def broken(observation):
        raise ValueError("bad planes")

    engine = stand_in_engine()
    engine.act = broken
    piped = Piped(engine)
    piped.send("1 lz-genmove_analyze b 10")
    assert piped.until("?1") == ["?1 internal error: bad planes\n"]
    assert piped.readline() == "\n"
    piped.send("2 name")
    assert piped.until("=2") == ["=2 boardq\n"]
    assert piped.close()


@pytest.mark.parametrize("name", GENMOVES)
def test_a_genmove_analyze_that_resigns_records_the_resignation(name):
    engine = stand_in_engine()
    engine.act = lambda observation: (int(np.flatnonzero(observation["action_mask"])[0]), -0.9)
    engine.resign_below = 0.1
    for ply in range(20):  # the opening, where it never resigns
        vertex = GO.gtp.vertex(40 + (ply % 2) * 10 + ply // 2)
        assert engine.answer(f"play {'bw'[ply % 2]} {vertex}") == "=\n\n"
    answer = engine.answer(f"{name} b 10")
    assert answer.startswith("=\ninfo move ") and answer.endswith("\nplay resign\n\n")
    assert engine.record().result_text == "W+R"


def test_a_failure_before_the_stream_starts_is_answered(capsys):
    engine = stand_in_engine()

    def broken(seat):
        raise KeyError("observation")

    engine.analysed = broken
    for name in ("lz-analyze b 10", "kata-genmove_analyze b 10"):
        assert engine.answer(name) == "? internal error: 'observation'\n\n"
    assert engine.moves == [] and "KeyError" in capsys.readouterr().err
