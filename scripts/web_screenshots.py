"""The pictures of docs/serve.md: each game's board in the browser, against its bundled agent.

    python3 scripts/web_screenshots.py docs/images

starts `boardq serve` (every game, the agents that come with boardq), opens it in the
system's Chromium (/usr/bin/chromium, through Playwright) and, per game, plays a few
seeded random moves by clicking, then saves `serve-GAME.png` of the board and its
status line. Tic-tac-toe and Connect Four are played to the end (the winning line
ringed); Connect Four with the hints on first.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
SETTLED = "() => document.body.dataset.phase && document.body.dataset.phase !== 'busy'"
# Per game: how many of your moves to play (None: to the end), hints shown at the end.
PLAN = {
    "tictactoe": (None, False),
    "connect_four": (None, False),
    "othello": (8, True),
    "gomoku": (6, False),
    "hex": (7, False),
    "go": (8, False),
}


def play(page, moves: int | None, rng: random.Random) -> None:
    played = 0
    while page.get_attribute("body", "data-phase") == "playing" and (
        moves is None or played < moves
    ):
        targets = page.locator("#board .target")
        if targets.count() == 0:  # only a pass is left
            page.locator("#buttons button.legal").first.click()
        else:
            targets.nth(rng.randrange(targets.count())).click()
        page.wait_for_function(SETTLED)
        played += 1


def main() -> None:
    """Writes the pictures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path, help="folder for the pictures (docs/images)")
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as empty:
        server = subprocess.Popen(
            [sys.executable, "-P", "-m", "boardq", "serve", "--port", "0", "--runs-dir", empty],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        )
        try:
            url = server.stdout.readline().split()[1]
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=["--headless", "--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1000, "height": 900})
                page.set_default_timeout(180_000)
                page.goto(url)
                page.wait_for_function("() => document.body.dataset.phase === 'idle'")
                for name, (moves, hints) in PLAN.items():
                    page.select_option("#game", name)
                    page.wait_for_function(SETTLED)
                    play(page, moves, random.Random(f"{args.seed}-{name}"))
                    if hints:
                        page.check("#hints")
                        page.wait_for_function(
                            "() => !document.getElementById('hint-legend').hidden"
                        )
                        page.wait_for_function(SETTLED)
                    page.locator("#play").screenshot(path=str(args.out / f"serve-{name}.png"))
                    if hints:
                        page.uncheck("#hints")
                    print(f"{name}: {page.inner_text('#status')}")
                browser.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
