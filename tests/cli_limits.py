"""What the chapters' CLI tests share: every limit of a bounded option is accepted, and one step
past it is refused.

A probe ends with --csv --json, which Cli::parse refuses only after it has read and checked every
option: that line says the value was accepted, and the program stops there, before it allocates
or computes anything (a limit such as heat3d --nx 2147483647 never runs). A value past a limit
must be refused before it, in one line naming its option."""
import os
import re
import shlex
import subprocess

FORMATS = ["--csv", "--json"]
FORMATS_LINE = "choose one of --csv and --json"


class Limits:
    def __init__(self):
        self.probes, self.failures = 0, []

    def check(self, program, label, accepted, refused, args_for, stop_line=FORMATS_LINE):
        """label: the option as its error line names it; args_for(value): the probe's arguments;
        stop_line: what the program says, once every option is read, to stop the probe."""
        name = os.path.basename(program)
        for value, accept in [(v, True) for v in accepted] + [(v, False) for v in refused]:
            self.probes += 1
            args = args_for(str(value))
            r = subprocess.run([program, *args], capture_output=True, text=True, timeout=60)
            lines = r.stderr.strip().splitlines()
            one = r.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"{name}: error: ")
            line = lines[0] if one else ""
            if accept and stop_line not in line:
                self.failures.append(f"{name} {shlex.join(args)}: {value} is a limit of {label}, but the parser did "
                                     f"not accept it (exit {r.returncode}, stderr {r.stderr!r})")
            elif not accept and (not re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", line) or stop_line in line):
                self.failures.append(f"{name} {shlex.join(args)}: {value} is one step past a limit of {label}, but it "
                                     f"was not refused in one line naming {label} (exit {r.returncode}, "
                                     f"stderr {r.stderr!r})")

    def check_option(self, program, option, low, high, before=()):
        """An integer option LOW..HIGH, after the arguments BEFORE."""
        self.check(program, option, [low, high], [low - 1, high + 1], lambda v: [*before, option, v, *FORMATS])

    def summary(self) -> list:
        """Prints the count; returns the failures."""
        print(f"{self.probes - len(self.failures)} of {self.probes} limits and steps past them handled as expected")
        return self.failures
