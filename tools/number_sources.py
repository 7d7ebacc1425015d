#!/usr/bin/env python3
"""Lists the measured numbers in the lessons, the slides and the README that no file they cite
holds: each figure written with a unit of time (ns, us, ms, s), a rate (GB/s, GFLOP/s, GCells/s,
...), a ratio (2.1x) or a percentage.

A number is traced when a results file cited in its paragraph or list item (or, for a figure of
three digits or more, one that a table of the same document is made from) holds it, rounded as
written (in any unit a thousand times larger or smaller, a fraction as its percentage), or holds
two numbers on one line whose ratio it is (a time of three digits or more: a time on the line
divided by a count on it, 100 or more: "6.02 us" per step of a run of 0.0301 s and 5000 steps),
or when it is the ratio of two numbers of the same paragraph or table, or when the text works it
out right before it ("2.04 x 4175 = 8.5 TFLOP/s": the product, in any unit a thousand times
larger or smaller, rounds to it). A paragraph that cites no file leans on the table marker right under it (its
heading), else on the files cited in its section and the sections it is part of ("same file,
run 7"; a slide's file under its points); the rows of a generated table count as cited by the
paragraphs of its section below it. Not checked: the rows under `<!-- table: ... -->` markers
(tools/lesson_tables.py writes them from their files), code, sentences that cite published work
by its address or say that they quote it, and a table right above or below such a sentence (a
quoted figure, with its source).

    python3 tools/number_sources.py [FILE.md ...] [--count | --suggest]

Prints one line per untraced number, FILE:LINE: "NUMBER UNIT" and why (no file cited, or not
in the files named), then how many; --count prints only the count per document; --suggest adds
the committed results files that hold a figure of three digits or more as written (its
chapter's first), to cite. Exit 0 (the list is for the writer to work through), 2 on bad input.
"""
import bisect
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import chapters  # noqa: E402
import plotting  # noqa: E402
from lesson_tables import documents  # noqa: E402  (the documents the project's table checks read)

ROOT = chapters.ROOT
UNITS = r"(?:ns|us|µs|ms|s|GB/s|TB/s|GiB/s|GCells/s|Gcells/s|Gupdates/s|GFLOP/s|TFLOP/s|MFLOP/s|" \
        r"million cell updates per second)"
TIMES = ("ns", "us", "µs", "ms", "s")
# "A x B = " right before a figure: the product it is said to be.
WORKED_OUT = re.compile(r"(\d+(?:\.\d+)?(?:e\d+)?)\s*(?:[A-Za-z/]+\s*)?[x×]\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*=\s*$")
# A figure and its unit: "5.3 µs", "2.10x", "88.4%", "498.9 GCells/s" (a ratio's x written close).
MEASURED = re.compile(r"(?<![\w.^/#-])(\d+(?:,\d{3})*(?:\.\d+)?)(?:(x|×|%)|\s?(" + UNITS + r"))(?![\w/])")
# A results file, or the prefix a plot tool reads several by ("results/h200": h200_sizes.csv, ...).
CITED = re.compile(r"(?:\.\./)*(?:[\w.-]+/)*results/[\w.-]+|(?<![\w/.-])[\w.-]+\.(?:csv|txt)\b")  # or a bare file name
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
GROUPED = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b")  # "129,287,424" (in a CSV: inside quotes)


def blocks(text: str):
    """(first line number, text, section) of each paragraph and list item outside code; a
    generated table is one block, its marker line and its rows. section is the path of headings
    above it, one number per level (a subsection's path starts with its section's)."""
    block, start, section, in_code, table, headings = [], 0, (), False, None, 0
    for number, line in enumerate(text.splitlines() + [""], 1):
        stripped = line.strip()
        if in_code:
            in_code = not stripped.startswith("```")
            continue
        if table is not None:  # the rows under a marker, up to the first line that is not one
            if stripped.startswith("|"):
                table[1].append(stripped)
                continue
            yield table[0], "\n".join(table[1]), section
            table = None
        new_item = re.match(r"\s*(?:[-*]|\d+\.)\s", line)
        starts_other = stripped.startswith(("```", "<!-- table:", "#"))
        if (not stripped or starts_other or new_item) and block:
            yield start, "\n".join(block), section
            block = []
        if stripped.startswith("```"):
            in_code = True
        elif stripped.startswith("<!-- table:"):
            table = (number, [stripped])
        elif stripped.startswith("#"):
            level, headings = len(stripped) - len(stripped.lstrip("#")), headings + 1
            section = tuple(h for h in section if h[0] < level) + ((level, headings),)
            yield number, stripped, section  # a heading may cite its section's file
        elif stripped:
            if not block:
                start = number
            block.append(line)


def numbers_in(path: pathlib.Path) -> tuple:
    """Every number in a results file, and the numbers of each of its lines."""
    values, lines = set(), []
    for line in path.read_text(errors="replace").splitlines():
        row = [float(t) for t in NUMBER.findall(line)] + [float(t.replace(",", "")) for t in GROUPED.findall(line)]
        values.update(row)
        lines.append(row)
    return values, lines


UNIT_SCALES = (1, 100, 1e-3, 1e3, 1e-6, 1e6, 1e-9, 1e9)  # another unit of time or rate; a fraction as %


def as_written(text: str) -> tuple:
    """A figure's value and the half of its last written digit: "5.35" is 5.35 +- 0.005."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return float(text.replace(",", "")), 0.5 * 10 ** -decimals + 1e-12


def written(value: float, text: str, scales=UNIT_SCALES) -> bool:
    """Whether VALUE, times one of SCALES, rounds to TEXT."""
    target, half = as_written(text)
    return any(abs(value * scale - target) <= half for scale in scales)


def significant(text: str) -> int:
    """Its significant digits: a table's 5.35 may be restated as 5.35, not as "5" or "12%"."""
    return len(text.replace(",", "").replace(".", "").lstrip("0"))


def ratio_written(a: float, b: float, text: str, unit: str) -> bool:
    """Whether TEXT (a ratio: 1.24 for x, 89 for %) is a / b or b / a."""
    scales = (100,) if unit == "%" else (1,)
    return b != 0 and a != 0 and (written(a / b, text, scales) or written(b / a, text, scales))


class Sources:
    """The numbers of each cited file, read once."""

    def __init__(self):
        self.read = {}

    def get(self, path: pathlib.Path):
        if path not in self.read:
            self.read[path] = numbers_in(path) if path.is_file() else None
        return self.read[path]


def resolve(document: pathlib.Path, cited: str) -> list:
    """The files CITED names, from the document's folder or the repository's root."""
    chapter = ROOT / "chapters" / (document.stem if document.parent.name == "slides" else document.parent.name)
    for base in (document.parent, ROOT, chapter, chapter / "results"):  # a slide's results/..., a bare name
        path = (base / cited).resolve()
        if path.is_file():
            return [path] if path.suffix in (".csv", ".txt", ".md") else []  # a picture holds no figures to read
        prefixed = sorted(p for p in path.parent.glob(path.name + "_*") if p.suffix in (".csv", ".txt"))
        if prefixed:
            return prefixed
    return []


def cited_in(document: pathlib.Path, text: str) -> list:
    return [p for c in CITED.findall(text) for p in resolve(document, c)]


def traced(figure: str, unit: str, values: set, in_tables: set, rows: list, operands: list) -> bool:
    """Whether FIGURE is one of the cited VALUES, or (three digits or more) of the document's
    tables' files, or, a ratio, one of two OPERANDS of its paragraph or two numbers of one row."""
    if any(written(v, figure) for v in values):
        return True
    precise = significant(figure) >= 3
    if precise and any(written(v, figure) for v in in_tables):
        return True
    if precise and unit in TIMES and any(written(a / b, figure) for row in rows if len(row) < 64 for a in row
                                         for b in row if b >= 100 and b == int(b)):
        return True  # a time per step (or iteration): a run's time over its count
    if unit not in ("x", "%"):
        return False
    if any(ratio_written(a, b, figure, unit) for a in operands for b in operands):
        return True
    return precise and any(ratio_written(a, b, figure, unit) for row in rows if len(row) < 64 for a in row for b in row)


def untraced(document: pathlib.Path, sources: Sources) -> list:
    found = []
    cited_under, values_under = {}, {}  # per section: the files its paragraphs cite, its generated tables' numbers
    every = list(blocks(document.read_text()))
    for _, text, section in every:  # a section's files, wherever in it they are cited (a slide's last line)
        cited_under.setdefault(section, []).extend(cited_in(document, text))
    # The files of the lesson's own tables: a number restated from a table is traced to its file.
    tabled = [p for _, t, _ in every if t.startswith("<!-- table:") for p in cited_in(document, t)]
    for at, (start, text, section) in enumerate(every):
        cited = cited_in(document, text)
        if text.startswith("#"):
            continue
        if text.startswith("<!-- table:"):  # generated from its files: its rows are sources for its section
            values_under.setdefault(section, set()).update(
                float(t) for t in NUMBER.findall(text.split("\n", 1)[-1].replace(",", "")))
            continue
        # A subsection leans on its section too, but not on the document's title (a level-1 heading).
        ancestors = [section[:n] for n in range(1, len(section)) if section[n - 1][0] >= 2] + [section]
        section_cited = [p for a in ancestors for p in cited_under.get(a, [])]
        section_values = set().union(*(values_under.get(a, set()) for a in ancestors))
        beside = [every[i][1] for i in (at - 1, at + 1) if 0 <= i < len(every)]
        if all(line.lstrip().startswith("|") for line in text.splitlines()) and any(
                re.search(r"\bquoted\b", b) for b in beside):
            continue  # a table that the line above or below it says it quotes
        following = every[at + 1] if at + 1 < len(every) else (0, "", -1)
        if not cited and following[1].startswith("<!-- table:") and following[0] - start <= text.count("\n") + 2:
            cited = cited_in(document, following[1])  # the table's heading
        files = list(dict.fromkeys(cited or section_cited))
        tables = [sources.get(p) for p in files]
        values = set().union(section_values, *(t[0] for t in tables))
        rows = [row for t in tables for row in t[1]]
        in_tables = set().union(*(sources.get(p)[0] for p in tabled if p not in files)) if tabled else set()
        # A ratio may be of two numbers of the same paragraph or table (its raw cells carry no unit);
        # one of fewer than three digits only of two figures with units, or chance would trace it.
        operands = [float(t) for t in NUMBER.findall(text.replace(",", ""))][:200]
        figures = [float(m.group(1).replace(",", "")) for m in MEASURED.finditer(text)]
        sentences = re.split(r"(?<=[.;])\s+", text)
        for sentence in sentences:
            if "http://" in sentence or "https://" in sentence or re.search(r"\bquoted\b", sentence):
                continue  # a published figure, quoted (with its address here, or in the Sources)
            for m in MEASURED.finditer(sentence):
                figure, unit = m.group(1), (m.group(2) or m.group(3)).replace("×", "x")
                line = start + text[:text.find(sentence)].count("\n") + sentence[:m.start()].count("\n")
                worked = WORKED_OUT.search(sentence[:m.start()])
                if worked and written(float(worked.group(1)) * float(worked.group(2)), figure):
                    continue  # its product, written out just before it
                if not traced(figure, unit, values, in_tables, rows, operands if significant(figure) >= 3 else figures):
                    names = ", ".join(p.name for p in files[:3]) + (" ..." if len(files) > 3 else "")
                    found.append((line, f"{figure}{'' if unit in 'x%' else ' '}{unit}",
                                  f"not in {names}" if files else "no results file cited"))
    return found


class Index:
    """Every number of every committed results file, sorted, to say which files hold a figure."""

    def __init__(self, sources: Sources):
        self.files = {p: sorted(sources.get(p)[0]) for p in sorted((ROOT / "chapters").glob("*/results/*"))
                      if p.suffix in (".csv", ".txt") and sources.get(p)}

    def holding(self, figure: str, document: pathlib.Path) -> list:
        """The files that hold FIGURE as written, those of the document's chapter first."""
        target, half = as_written(figure)
        found = []
        for path, values in self.files.items():
            for scale in UNIT_SCALES:
                low = bisect.bisect_left(values, (target - half) / scale)
                if low < len(values) and values[low] * scale <= target + half:
                    found.append(path)
                    break
        return sorted(found, key=lambda p: (p.parent.parent != document.parent, str(p)))


def main(argv) -> int:
    parser = plotting.Parser(doc=__doc__, prog="number_sources.py")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--suggest", action="store_true")
    args = parser.parse_args(argv)
    docs = [pathlib.Path(f).resolve() for f in args.files] or documents()
    for d in docs:
        if not d.is_file() or d.suffix != ".md":
            why = "is not a Markdown file" if d.is_file() else "does not exist"
            parser.error(f"{d} {why}")
    sources, total = Sources(), 0
    index = Index(sources) if args.suggest else None
    for d in docs:
        rows = untraced(d, sources)
        total += len(rows)
        name = d.relative_to(ROOT) if d.is_relative_to(ROOT) else d
        if args.count:
            print(f"{len(rows):5d}  {name}")
        else:
            for line, figure, why in rows:
                digits = figure.split()[0].rstrip("x%")
                held = index.holding(digits, d) if index and significant(digits) >= 3 else []  # else chance
                hint = ("; held by " + ", ".join(str(p.relative_to(ROOT)) for p in held[:3])) if held else ""
                print(f"{name}:{line}: {figure}: {why}{hint}")
    print(f"{total} measured numbers untraced in {len(docs)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
