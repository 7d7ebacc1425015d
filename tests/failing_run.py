"""What the expect_*_failure.py checks share: a test program that must fail, run under a time
limit, its exit 77 (no GPU) passed on as a skip."""
import subprocess
import sys


def run_failing(cmd: list, timeout: float, what: str) -> tuple:
    """(exit code, stdout + stderr) of CMD; ends the check on a hang (FAIL, naming WHAT) or on
    exit 77 (skip)."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: {what} hangs")
    output = done.stdout + done.stderr
    if done.returncode == 77:
        print(output.strip())
        sys.exit(77)
    return done.returncode, output
