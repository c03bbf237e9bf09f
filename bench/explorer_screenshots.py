"""Screenshots of each explorer view at 1280x800 for docs/explorer.md (issue 31), taken with Playwright driving the
distribution's Chromium (/usr/bin/chromium) against `termx serve` on 127.0.0.1, then reduced to a 64-colour
palette (Pillow) so the PNGs stay small.

Run: python bench/explorer_screenshots.py --db postgresql://postgres@127.0.0.1:5432/DB [--corpus reuters]
(the corpus of bench_explorer.py --build: Reuters-21578, byte unit, with sketches). Writes docs/img/explorer-*.png.
"""

from __future__ import annotations

import argparse
import io
import socket
import threading
import time
from pathlib import Path
from urllib.parse import quote

OUT = Path(__file__).resolve().parents[1] / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"


def views(corpus: str) -> list[tuple[str, str]]:
    """(file stem, URL) of each view shown in docs/explorer.md."""
    c = f"/c/{quote(corpus, safe='')}"
    return [("corpora", "/"), ("lookup", f"{c}/stats?q=Bundesbank&q=oil"),
            ("concordance", f"{c}/concordance?q=Bundesbank&page=2&per=20&width=40"),
            ("document", f"{c}/doc?doc_no=5898&offset=627&q=Bundesbank"),
            ("terms", f"{c}/terms?rank=adaptation&top=30&min_df=5"),
            ("related", f"{c}/related?q=Bundesbank&min_df=5"), ("jdf", f"{c}/jdf?x=Bundesbank&y=Poehl"),
            ("segment", f"{c}/segment?text=" + quote("thebundesbankraisedinterestrates\nopecoilpricesfell")),
            ("studies", f"{c}/studies"), ("sql", f"/sql/stats?corpus={quote(corpus)}&pattern=Bundesbank&run=1")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--corpus", default="reuters")
    args = parser.parse_args()
    import uvicorn
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from termx.serve import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(args.db, port=port), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    OUT.mkdir(parents=True, exist_ok=True)
    total = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1280, "height": 800}, base_url=f"http://127.0.0.1:{port}")
        for stem, url in views(args.corpus):
            page.goto(url, timeout=600_000)
            page.wait_for_load_state("networkidle", timeout=600_000)
            shot = Image.open(io.BytesIO(page.screenshot()))
            path = OUT / f"explorer-{stem}.png"
            shot.convert("RGB").quantize(colors=64).save(path, optimize=True)
            total += path.stat().st_size
            print(f"{path.relative_to(OUT.parents[1])}: {path.stat().st_size // 1024} KB")
        browser.close()
    server.should_exit = True
    print(f"total {total // 1024} KB")


if __name__ == "__main__":
    main()
