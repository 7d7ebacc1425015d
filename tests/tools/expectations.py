"""What the tools' tests share: one line per expectation, and a failing exit if any did not hold."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the repository
_failed = []


def expect(what: str, held: bool) -> None:
    print(("ok   " if held else "FAIL ") + what)
    if not held:
        _failed.append(what)


def finish() -> None:
    sys.exit(1 if _failed else 0)
