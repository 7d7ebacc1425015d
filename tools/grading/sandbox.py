"""The sandbox around every process that compiles or runs a submission's code: bubblewrap (Debian's
and Ubuntu's `bubblewrap` package), with new user, process, network and IPC namespaces.
Inside it:
- the file system is the machine's, read-only; /tmp is empty and the submission's own;
- /home, /root and the other places people keep files are empty, and so are the grader's
  scratch folder (every unpacked submission, the reference programs), the submissions as given
  and the report folder; the instructor's checkout is there again, read-only, without its
  solutions/ and .git/, and the grading build is writable only while the submission compiles;
- the GPU's device files are bound in; there is no network, not even the host's loopback;
- it runs as user nobody, with a clean environment, a limit on its data memory, and every
  process it started is killed when its main process ends.
Where bubblewrap is missing or cannot create namespaces here, the grader says so at the top of
the report (--require-sandbox makes that an error) and runs the processes as before."""
import glob
import os
import pathlib
import resource
import shlex
import shutil
import subprocess
import sys

from chapters import ROOT

PRIVATE = ("/home", "/root", "/run/user", "/mnt", "/media", "/srv", "/var/tmp")
KEPT = ("PATH", "LANG", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH")
# The machine's MPI configuration, which mpirun needs inside too (a container without ssh sets
# OMPI_MCA_plm=isolated, say: without it mpirun looks for ssh and stops).
KEPT_PREFIXES = ("OMPI_MCA_", "PMIX_MCA_")
LEFTOVER = "tut-sandbox: processes left running: "  # what the wrapper says when the command ends


def default_memory_gib() -> float:
    """The data memory a sandboxed process may take by default: half the machine's, at most 16 GiB."""
    return min(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2, 16 << 30) / (1 << 30)


class Sandbox:
    def __init__(self, hidden, build: pathlib.Path, memory_gib: float):
        """HIDDEN: the paths a submission must not see; BUILD: the grading build."""
        self.hidden = [pathlib.Path(p).resolve() for p in hidden]
        self.build = build
        self.bwrap = shutil.which("bwrap")
        self.limit = int(memory_gib * (1 << 30))
        self.why_not = "" if self.bwrap else "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        if self.bwrap:
            probe = subprocess.run(self.command(["true"], ROOT, {}), capture_output=True, text=True,
                                   preexec_fn=self.limits)
            if probe.returncode != 0:
                self.why_not = f"bubblewrap cannot set up its namespaces here: {probe.stderr.strip()[-300:]}"

    @property
    def active(self) -> bool:
        return not self.why_not

    def describe(self) -> str:
        if not self.active:
            return f"NO SANDBOX: the submissions' code ran with the grader's rights ({self.why_not})"
        return (f"sandbox: bubblewrap, user nobody, no network, checkout read-only, other submissions hidden, "
                f"{self.limit / (1 << 30):.1f} GiB of data memory")

    def limits(self):
        """Run in the child before it becomes bwrap: the memory limit, inherited by all inside."""
        resource.setrlimit(resource.RLIMIT_DATA, (self.limit, self.limit))

    def command(self, cmd, cwd, env: dict, compiling=False, tmp=None) -> list:
        """CMD wrapped so that it runs in the sandbox, in CWD, with ENV (and the few variables of
        KEPT) as its whole environment, and TMP (a folder of the grader's) as its /tmp, or an
        empty one. After CMD ends, the wrapper counts the processes it left behind (LEFTOVER);
        the sandbox's end then kills them."""
        args = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--uid", "65534", "--gid", "65534",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        args += ["--bind", str(tmp), "/tmp"] if tmp else ["--tmpfs", "/tmp"]
        for device in sorted(glob.glob("/dev/nvidia*")):
            args += ["--dev-bind", device, device]
        for place in PRIVATE:
            if os.path.isdir(place):
                args += ["--tmpfs", place]
        # the Python that runs Meson and the tools and its virtual environment, where they live in
        # a hidden place (a home, pyenv, conda; a .venv linked from elsewhere): read-only
        for prefix in dict.fromkeys(os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)):
            args += ["--ro-bind", prefix, prefix]
        args += ["--ro-bind", str(ROOT), str(ROOT), "--bind" if compiling else "--ro-bind", str(self.build), str(self.build)]
        for private in (ROOT / "solutions", ROOT / ".git"):  # no #include "../../solutions/...", no history
            if private.is_dir():
                args += ["--tmpfs", str(private)]
        for path in self.hidden:
            if ROOT.is_relative_to(path) or self.build.is_relative_to(path):
                continue  # a folder around the checkout: hidden by the empty places above, where it can be
            if path.is_dir():
                args += ["--tmpfs", str(path)]
            elif path.exists():
                args += ["--ro-bind", "/dev/null", str(path)]
        args += ["--chdir", str(cwd), "--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        env = dict(env)
        preload = env.pop("LD_PRELOAD", "")  # for CMD alone, not the wrapper's shell
        kept = {k: v for k, v in os.environ.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}
        for name, value in {**kept, **env}.items():
            args += ["--setenv", name, str(value)]
        run = f"LD_PRELOAD={shlex.quote(preload)} " if preload else ""
        wrapper = f'{run}"$@"; status=$?; set -- /proc/[0-9]*; echo "{LEFTOVER}$(($# - 2))" >&2; exit $status'
        return args + ["--", "/bin/sh", "-c", wrapper, "sh", *map(str, cmd)]

    def wrap(self, cmd, cwd, env: dict, compiling=False, tmp=None):
        """(the command to run, its environment, preexec_fn): sandboxed if it can be, else as it was."""
        if self.active:
            return self.command(cmd, cwd, env, compiling, tmp), None, self.limits
        return list(map(str, cmd)), {**os.environ, **env}, None


def leftover(output: str) -> int:
    """How many processes the sandboxed command left running (its wrapper's last word on it)."""
    counts = [line.split(LEFTOVER, 1)[1] for line in output.splitlines() if LEFTOVER in line]
    return int(counts[-1]) if counts and counts[-1].strip().isdigit() else 0


def strip(output: str) -> str:
    return "\n".join(line for line in output.splitlines() if LEFTOVER not in line)
