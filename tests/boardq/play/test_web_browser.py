"""The browser board end to end: a real headless Chromium plays tic-tac-toe by clicks.

Chromium is the system's (Debian's `chromium` package, /usr/bin/chromium), driven by
Playwright for Python; Playwright's own browser downloads are never used. Without
either, the test is skipped and says what is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The page is "loading" until its game menu is filled, then "busy" while a request is
# out: settled is neither (a page still loading under load showed an empty menu).
SETTLED = "() => !['loading', 'busy', undefined].includes(document.body.dataset.phase)"
WAIT_MS = 120_000  # the first game loads its agent (TensorFlow) on a machine that may be busy


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install -e '.[test]')")
    executable = str(CHROMIUM) if CHROMIUM.is_file() else shutil.which("chromium")
    if executable is None:
        pytest.skip(f"no Chromium at {CHROMIUM} nor on PATH (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser, web_client):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(web_client.url)
    page.wait_for_function(SETTLED)
    yield page
    context.close()
    assert errors == []


def click_first_legal_cell(page) -> None:
    page.locator("#board .target").first.click()
    page.wait_for_function(SETTLED)


def test_a_whole_game_of_tictactoe_by_clicks(page):
    # The server's first game starts by itself: you move first, every cell clickable.
    assert page.locator("#game").input_value() == "tictactoe"
    assert page.inner_text("#status") == "You move first. Your move, X."
    assert page.locator("#board .target").count() == 9
    assert page.locator("#undo").is_disabled()

    page.check("#hints")
    page.wait_for_function("() => document.querySelectorAll('#board .heat').length === 9")
    assert page.locator("#board .heat-value").count() == 9
    assert page.locator("#hint-legend").is_visible()  # the hints' scale, explained
    assert "Three of your marks in a row" in page.locator("#help").text_content()
    assert "Type a move" not in page.locator("#help").text_content()  # not the terminal's

    click_first_legal_cell(page)  # the top left cell; the agent takes the centre
    assert page.inner_text("#status") == "The agent played 5 (b2). Your move, X."
    assert page.locator("#board .last").count() == 1
    assert page.locator("#board .piece").count() == 2
    assert page.locator("#moves li").all_inner_texts() == ["you: 1", "agent: 5"]
    page.wait_for_function("() => document.querySelectorAll('#board .heat').length === 7")

    page.click("#undo")
    page.wait_for_function(SETTLED)
    assert page.locator("#board .piece").count() == 0

    while page.get_attribute("body", "data-phase") == "playing":
        click_first_legal_cell(page)
    # You 1, 4, 2 (the first free cells); the agent 5, 7, 3: the line 3-5-7.
    assert page.get_attribute("body", "data-phase") == "over"
    assert page.inner_text("#status") == "The agent wins. New game to play again."
    assert page.inner_text("#score") == "You 0 · Draws 0 · Agent 1"
    assert page.locator("#board .target").count() == 0
    assert page.locator("#board .win").count() == 3  # the line 3-5-7, ringed
    assert colour_of(page, "#status") == "rgb(179, 38, 30)"  # a loss in red, not green
    page.click("#undo")  # undo after the end: the game stays on the score
    page.wait_for_function(SETTLED)
    assert page.inner_text("#score") == "You 0 · Draws 0 · Agent 1"
    assert page.locator("#board .win").count() == 0

    page.select_option("#seat", "1")  # move second: a new game, the agent opens
    page.wait_for_function(SETTLED)
    assert page.locator("#moves li").all_inner_texts() == ["agent: 5"]
    assert page.inner_text("#score") == "You 0 · Draws 0 · Agent 1"


def colour_of(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).color")


def moves_shown(page) -> list[str]:
    return page.locator("#moves li").all_inner_texts()


def test_keyboard_play_with_a_visible_cursor(page):
    page.focus("#board")
    page.keyboard.press("ArrowRight")  # from the first cell (top left) to the top middle
    page.keyboard.press("ArrowDown")  # the centre
    assert page.locator("#board .cursor").count() == 1
    assert page.eval_on_selector("#board", "e => getComputedStyle(e).outlineStyle") == "solid"
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    assert moves_shown(page) == ["you: 5", "agent: 1"]
    page.keyboard.press("9")  # a cell by its number
    page.wait_for_function(SETTLED)
    assert moves_shown(page) == ["you: 5", "agent: 1", "you: 9", "agent: 7"]
    # Connect Four: a column by its number; the disc drops.
    page.select_option("#game", "connect_four")
    page.wait_for_function(SETTLED)
    page.focus("#board")
    page.keyboard.press("4")
    page.wait_for_function(SETTLED)
    assert moves_shown(page) == ["you: 4", "agent: 4"]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Space")
    page.wait_for_function(SETTLED)
    assert moves_shown(page)[2] == "you: 3"


def test_an_expired_session_starts_a_new_game_with_a_note(page, web_client):
    click_first_legal_cell(page)
    assert moves_shown(page) == ["you: 1", "agent: 5"]
    session = page.evaluate("() => sessionStorage.getItem('boardq-session')")
    web_client.app.sessions.drop(session)  # what the server does to its oldest sessions
    click_first_legal_cell(page)
    # The browser logs the one 404 (of the move in the expired session); nothing else.
    assert page.errors == [
        "Failed to load resource: the server responded with a status of 404 (Not Found)"
    ]
    page.errors.clear()
    assert "Your last game had expired" in page.inner_text("#note")
    assert page.inner_text("#error") == ""
    assert page.inner_text("#status") == "You move first. Your move, X."
    assert moves_shown(page) == [] and page.locator("#board .target").count() == 9
    assert page.evaluate("() => sessionStorage.getItem('boardq-session')") != session
    click_first_legal_cell(page)  # and the new game plays
    assert moves_shown(page) == ["you: 1", "agent: 5"] and page.inner_text("#note") == ""


def test_boardq_serve_connect_four_plays_a_whole_game_by_clicks(browser, tmp_path):
    """The command as a user starts it, with no run: the agent that comes with boardq."""
    import os
    import signal
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    server = subprocess.Popen(
        [sys.executable, "-m", "boardq", "serve", "connect_four", "--port", "0",
         "--runs-dir", str(tmp_path / "no-runs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env, text=True,
    )  # fmt: skip
    try:
        assert "the agent that comes with boardq" in server.stdout.readline()
        url = server.stdout.readline().split()[1]
        context = browser.new_context(viewport={"width": 1000, "height": 800})
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(SETTLED)
        assert page.locator("#game").input_value() == "connect_four"
        assert page.locator("#board .target").count() == 7  # a column each
        clicks = 0
        while page.get_attribute("body", "data-phase") == "playing" and clicks < 21:
            click_first_legal_cell(page)
            clicks += 1
        assert page.get_attribute("body", "data-phase") == "over"
        assert "New game to play again" in page.inner_text("#status")
        assert page.inner_text("#score") != "You 0 · Draws 0 · Agent 0"
        context.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)


# -- records: a game saved from the page, a record opened on it ----------------------------
def test_a_hex_game_finished_on_the_page_is_saved_and_replays_in_the_terminal(
    page, web_client, tmp_path
):
    import re
    import subprocess
    import sys

    from boardq.catalog import get_game
    from boardq.records import read_records, replay_record

    page.select_option("#game", "hex")
    page.wait_for_function(SETTLED)
    assert page.locator("#save").is_hidden()  # nothing to save before the first move
    while page.get_attribute("body", "data-phase") == "playing":
        click_first_legal_cell(page)
    assert page.inner_text("#save") == "Save the game: SGF JSON lines"
    with page.expect_download() as info:
        page.click("#save-sgf")
    download = info.value
    assert re.fullmatch(r"boardq-hex-\d{8}-\d{6}\.sgf", download.suggested_filename)
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)

    [record] = read_records(saved).records
    assert [m.label for m in record.moves] == [m.split(": ")[1] for m in moves_shown(page)]
    session = page.evaluate("() => sessionStorage.getItem('boardq-session')")
    shown = web_client.ok("GET", f"/api/sessions/{session}")["board"]  # what the page drew
    assert page.locator("#board .piece").count() == len(record.moves)
    # `boardq replay` ends on the same position, with the result the page gave.
    out = subprocess.run(
        [sys.executable, "-m", "boardq", "replay", str(saved), "--ascii"],
        input="end\nquit\n", capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    you_won = page.inner_text("#status").startswith("You win!")
    assert f"the end: {'B+' if you_won else 'W+'}" in out
    final = out.split("replay [0/")[1].split("\n")
    rows = [re.findall(r"[XO.]", line) for line in final if re.match(r"\s*\d+ ", line)]
    assert rows == [["X" if c == 0 else "O" if c == 1 else "." for c in row] for row in shown]
    assert replay_record(record, get_game("hex")).result == (1 if you_won else -1)


def test_a_record_is_opened_stepped_through_and_closed_with_the_game_kept(page, tmp_path):
    from pathlib import Path

    click_first_legal_cell(page)  # your game: tic-tac-toe, one move each
    assert moves_shown(page) == ["you: 1", "agent: 5"]
    gnugo = Path(__file__).parents[1] / "records" / "data" / "gnugo-9x9.sgf"
    page.set_input_files("#record-file", str(gnugo))
    page.wait_for_function("() => document.body.dataset.phase === 'replay'")
    assert page.inner_text("#replay-title") == "gnugo-9x9.sgf: Go, W+10.5, 68 moves"
    assert page.inner_text("#status") == "The start."
    assert page.locator("#board .piece").count() == 0
    assert page.locator("#board .target").count() == 0  # nothing to click: a record
    page.click("#replay-next")
    assert page.inner_text("#status") == "Move 1: black E5."
    assert page.locator("#board .piece").count() == 1 and page.locator("#board .last").count() == 1
    page.fill("#replay-move", "30")
    page.press("#replay-move", "Enter")
    assert page.inner_text("#status") == "Move 30: white J3."
    assert page.locator("#moves li.current").inner_text() == "white J3"
    page.click("#replay-end")
    assert page.inner_text("#status") == "Move 68: white pass. The end: W+10.5."
    page.click("#replay-back")
    assert page.inner_text("#status").startswith("Move 67: black pass")
    page.focus("#board")
    page.keyboard.press("Home")
    assert page.inner_text("#status") == "The start."

    # A broken file is one line under the status; the open record is kept.
    broken = tmp_path / "broken.sgf"
    broken.write_bytes(gnugo.read_bytes()[:200])
    page.set_input_files("#record-file", str(broken))
    # The page is settled before the upload's answer comes back: wait for the answer.
    page.wait_for_function("() => document.querySelector('#error').innerText !== ''")
    assert page.inner_text("#error").startswith("broken.sgf: not a readable SGF file")
    assert "\n" not in page.inner_text("#error")
    assert page.inner_text("#replay-title").startswith("gnugo-9x9.sgf")
    page.errors.clear()  # the browser logs the 422 of the broken file

    page.click("#replay-close")  # back to your game, as it was
    assert page.get_attribute("body", "data-phase") == "playing"
    assert moves_shown(page) == ["you: 1", "agent: 5"]
    assert page.locator("#board .piece").count() == 2
    click_first_legal_cell(page)
    assert moves_shown(page)[2:] == ["you: 4", "agent: 7"]
