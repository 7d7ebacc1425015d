"""What the tools' tests share: one line per expectation, and a failing exit if any did not hold."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the repository
_failed = []


def expect(what: str, held: bool) -> None:
    print(("ok   " if held else "FAIL ") + what)
    if not held:
        _failed.append(what)


def refused(tool: pathlib.Path, what: str, *args, names: str = "") -> None:
    """TOOL given ARGS answers with exit 2 and one line on stderr that names NAMES."""
    done = subprocess.run([sys.executable, str(tool), *map(str, args)], capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    expect(f"{what}: exit 2, one line on stderr naming {names!r} (exit {done.returncode}, {lines})",
           done.returncode == 2 and len(lines) == 1 and names in done.stderr)


def finish() -> None:
    sys.exit(1 if _failed else 0)
