#!/usr/bin/env python3
"""Render every slides/*.md deck to one self-contained HTML file (styles, script and images
inside), viewable offline in any browser and printable to PDF, one slide per page.

A deck is Markdown; a line holding only '---' starts the next slide. Needs the 'markdown'
package (PyPI; Debian: python3-markdown).

Usage: render_slides.py [--out DIR]   write DIR/NAME.html for each deck (default slides/html)
       render_slides.py --check       render into a temporary folder; fail if a deck is empty
                                      or names an image that does not exist
"""
import base64
import html
import mimetypes
import pathlib
import re
import sys
import tempfile

from plotting import InputError, Parser, run

ROOT = pathlib.Path(__file__).resolve().parent.parent
SLIDES = ROOT / "slides"

STYLE = """
body { margin: 0; background: #222; font-family: system-ui, sans-serif; }
section { display: none; box-sizing: border-box; width: 100vw; height: 100vh; padding: 4vh 6vw;
          background: #fff; color: #111; font-size: 2.6vh; overflow: hidden; }
section.current { display: block; }
h1 { font-size: 5vh; color: #0b5394; } h2 { font-size: 4vh; color: #0b5394; }
pre { background: #f4f4f4; padding: 1vh 1vw; font-size: 2vh; overflow: hidden; }
code { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; font-size: 2.1vh; } td, th { border: 1px solid #bbb; padding: 0.3vh 0.8vw; }
th { background: #eef; } td { text-align: right; } td:first-child { text-align: left; }
img { max-width: 80vw; max-height: 60vh; display: block; margin: 1vh auto; }
.footer { position: fixed; bottom: 1vh; right: 2vw; color: #888; font-size: 1.6vh; }
@media print { section { display: block; page-break-after: always; height: auto; min-height: 100vh; }
               .footer { display: none; } body { background: #fff; } }
"""

SCRIPT = """
const slides = [...document.querySelectorAll('section')];
let current = Math.max(0, Math.min(slides.length - 1, parseInt(location.hash.slice(1) || '1') - 1));
function show(n) {
  current = Math.max(0, Math.min(slides.length - 1, n));
  slides.forEach((s, i) => s.classList.toggle('current', i === current));
  document.querySelector('.footer').textContent = (current + 1) + ' / ' + slides.length;
  history.replaceState(null, '', '#' + (current + 1));
}
document.addEventListener('keydown', e => {
  if (['ArrowRight', 'PageDown', ' '].includes(e.key)) show(current + 1);
  if (['ArrowLeft', 'PageUp', 'Backspace'].includes(e.key)) show(current - 1);
});
document.addEventListener('click', e => show(current + (e.clientX > innerWidth / 3 ? 1 : -1)));
show(current);
"""


def embed_images(markup: str, deck: pathlib.Path, problems: list) -> str:
    def inline(match):
        src = match.group(1)
        if src.startswith("data:"):
            return match.group(0)
        path = (deck.parent / src).resolve()
        if not path.is_file():
            problems.append(f"{deck.name}: image {src} not found")
            return match.group(0)
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        data = base64.b64encode(path.read_bytes()).decode()
        return f'src="data:{mime};base64,{data}"'
    return re.sub(r'src="([^"]+)"', inline, markup)


def render(deck: pathlib.Path, out_dir: pathlib.Path, problems: list) -> None:
    import markdown  # imported here so that --help works without it
    try:
        text = deck.read_text()
    except UnicodeDecodeError:
        raise InputError(f"{deck}: not a text file (a binary file?)") from None
    parts = [p.strip() for p in re.split(r"^---\s*$", text, flags=re.M) if p.strip()]
    if not parts:
        problems.append(f"{deck.name}: no slides")
        return
    title = next((line[2:] for line in parts[0].splitlines() if line.startswith("# ")), deck.stem)
    sections = []
    for part in parts:
        body = markdown.markdown(part, extensions=["tables", "fenced_code"])
        sections.append(f"<section>\n{embed_images(body, deck, problems)}\n</section>")
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body>\n" + "\n".join(sections) +
            f"\n<div class=\"footer\"></div><script>{SCRIPT}</script></body></html>\n")
    (out_dir / (deck.stem + ".html")).write_text(page)


def main(argv: list) -> int:
    parser = Parser(__doc__)
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--out", metavar="DIR")
    choice.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.out is not None and not args.out.strip():  # an unset variable: Path('') is the repository's root
        parser.error("--out is empty")
    try:
        import markdown  # noqa: F401
    except ImportError:
        print("render_slides.py: the Python package 'markdown' is missing: activate the project's venv first "
              "(source .venv/bin/activate; tools/install_deps.sh makes it)", file=sys.stderr)
        return 2
    decks = sorted(SLIDES.glob("*.md"))
    decks = [d for d in decks if d.name != "README.md"]
    if not decks:
        print("render_slides: no decks in slides/", file=sys.stderr)
        return 1
    problems = []
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            for deck in decks:
                render(deck, pathlib.Path(tmp), problems)
    else:
        out_dir = pathlib.Path(args.out) if args.out else SLIDES / "html"
        out_dir.mkdir(parents=True, exist_ok=True)
        for deck in decks:
            render(deck, out_dir, problems)
            print(f"wrote {out_dir / (deck.stem + '.html')}")
    for problem in problems:
        print("render_slides:", problem, file=sys.stderr)
    if args.check and not problems:
        print(f"{len(decks)} deck(s) render: " + ", ".join(d.name for d in decks))
    return 1 if problems else 0


if __name__ == "__main__":
    run(main)
