"""The sandbox around every process that compiles or runs a submission's code, and around the
judge that checks its outputs: bubblewrap (Debian's and Ubuntu's `bubblewrap` package), with
new process, network, IPC and (unless the grader runs as root) user namespaces. Inside it:
- the machine's files read-only; /tmp and /dev/shm empty and the sandbox's own, of a fixed size;
  /home, /root, /run and the other places people keep files or sockets empty, every other socket
  file replaced by an empty file; the grader's scratch folder (every unpacked submission, the
  reference programs), the submissions as given and the report folder hidden;
- of the instructor's checkout only what the grading build needs, read-only: its build files,
  common/, chapters/, tests/, tools/ and the graded stage files (no solutions/, .git/, build
  folders or anything else); the grading build writable only while the submission compiles;
- the GPU's device files; no network, not even the machine's loopback;
- a user of its own: where the grader runs as root, the sandbox's processes run as user 65534
  (nobody), the judge's as 65533, outside the sandbox too; otherwise as the grader's user,
  seen as nobody in a user namespace of their own, where they cannot make another;
- a seccomp filter (seccomp.py): no ptrace, no reading another process's memory or descriptors;
- limits for the whole sandbox: its memory and its number of processes (a cgroup of its own
  where the grader may make one, else each process's data memory and, as root, the user's
  processes), its output (the head and the tail are kept), the size of what it writes;
- its first process is the monitor (monitor.c, compiled as the grader starts), which reports how the command ended and how many
  processes it left running; then the sandbox is torn down as a whole (its process namespace),
  and any of its processes found after that is killed and reported.
Where bubblewrap is missing or cannot set up the sandbox here, the grader says so at the top of
the report (--require-sandbox makes that an error) and runs the processes unconfined."""
import dataclasses
import glob
import json
import os
import pathlib
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

from chapters import ROOT
from . import seccomp
from .cgroups import Cgroups

PRIVATE = ("/home", "/root", "/run", "/var/run", "/mnt", "/media", "/srv", "/var/tmp")
VISIBLE = ("meson.build", "meson.options", "common", "chapters", "tests", "tools", "submission")  # of the checkout
KEPT = ("PATH", "LANG", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH")
# The machine's MPI configuration, which mpirun needs inside too (a container without ssh sets
# OMPI_MCA_plm=isolated, say: without it mpirun looks for ssh and stops).
KEPT_PREFIXES = ("OMPI_MCA_", "PMIX_MCA_")
# Set inside whatever the machine says: Open MPI copies between its processes through shared
# memory, never by reading another process's memory (which the seccomp filter refuses); no
# compiler cache (Meson compiles through ccache where it is installed): every object of a
# submission's build is compiled there, from its own files.
FIXED_ENV = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_smsc": "^cma", "CCACHE_DISABLE": "1"}
STUDENT_UID, JUDGE_UID = 65534, 65533
TMP_BYTES, SHM_BYTES = 2 << 30, 256 << 20
FILE_BYTES = 4 << 30                        # the largest file a sandboxed process may write
OUTPUT_HEAD, OUTPUT_TAIL = 64 << 10, 192 << 10  # of a command's output, what the grader keeps
FETCH_BYTES = 4 << 20                       # of a file handed back (a test's own report)
MONITOR = pathlib.Path(__file__).with_name("monitor.c")


def default_memory_gib() -> float:
    """The memory a sandbox may take by default: half the machine's, at most 16 GiB."""
    return min(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2, 16 << 30) / (1 << 30)


def default_processes() -> int:
    """Processes (threads included) a sandbox may run: a compiler per core, an OpenMP or
    OpenBLAS thread per core, MPI's three processes, and room to spare."""
    return 256 + 4 * (os.cpu_count() or 1)


@dataclasses.dataclass
class View:
    """What a sandbox sees beyond the machine's read-only files and the checkout's VISIBLE part."""
    build: str = "ro"      # the grading build: 'rw' (while compiling), 'ro' or 'hidden' (the judge)
    readable: tuple = ()   # more folders, read-only (the judge's reference programs)
    writable: tuple = ()   # folders it may write (the judge's report)
    judge: bool = False    # runs as the judge's user


@dataclasses.dataclass
class Ran:
    """How a sandboxed command went."""
    code: int               # its exit status; 128 + N: killed by signal N
    output: str             # its stdout and stderr, the head and the tail where it said more
    seconds: float
    timed_out: bool = False
    left: int = 0           # processes it left running when it ended (the teardown killed them)
    escaped: int = 0        # processes of the sandbox still there after the teardown (killed then)
    out_of_memory: bool = False  # its cgroup reached the memory limit
    fetched: bytes = b""    # the file it was asked to hand back, cut to FETCH_BYTES
    monitored: bool = True  # the monitor reported (False: something inside killed it)


class Capture(threading.Thread):
    """Reads a pipe to its end, keeping OUTPUT_HEAD bytes of its start and OUTPUT_TAIL of its end."""

    def __init__(self, fd: int):
        super().__init__(daemon=True)
        self.fd, self.head, self.tail, self.dropped = fd, bytearray(), bytearray(), 0

    def run(self):
        while chunk := os.read(self.fd, 1 << 16):
            room = OUTPUT_HEAD - len(self.head)
            self.head += chunk[:room]
            self.tail += chunk[room:] if room > 0 else chunk
            if len(self.tail) > OUTPUT_TAIL:
                self.dropped += len(self.tail) - OUTPUT_TAIL
                del self.tail[:len(self.tail) - OUTPUT_TAIL]
        os.close(self.fd)

    def text(self) -> str:
        cut = f"\n[... {self.dropped} bytes of output left out ...]\n" if self.dropped else ""
        return (bytes(self.head).decode(errors="replace") + cut + bytes(self.tail).decode(errors="replace"))


def read_all(fd: int, most: int, wait: float = 2.0) -> bytes:
    """What the pipe FD holds up to its end, at most MOST bytes, waiting at most WAIT seconds."""
    data, deadline = bytearray(), time.monotonic() + wait
    while len(data) < most and select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
        chunk = os.read(fd, min(1 << 16, most - len(data)))
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return bytes(data)


def socket_files(skipped, budget: float = 20.0):
    """Every socket file of the machine outside the SKIPPED folders (and /proc, /sys, /dev), and
    whether the search finished within BUDGET seconds."""
    skipped = set(skipped) | {"/proc", "/sys", "/dev"}
    found, folders, deadline = [], ["/"], time.monotonic() + budget
    while folders:
        if time.monotonic() > deadline:
            return found, False
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.path in skipped:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                    found.append(entry.path)
            except OSError:
                pass
    return found, True


def namespace_members(inode: int) -> set:
    """The live processes of the process namespace INODE (as /proc/PID/ns/pid names it): those
    still there, not exiting, after a moment for the namespace's teardown to end."""
    found = set()
    for _ in range(20):
        found = set()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    alive = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[0] not in "ZXx"
                    if alive and os.readlink(f"/proc/{entry}/ns/pid") == f"pid:[{inode}]":
                        found.add(int(entry))
                except (OSError, IndexError):
                    pass
        if not found:
            break
        time.sleep(0.025)
    return found


class Sandbox:
    def __init__(self, hidden, build: pathlib.Path, memory_gib: float, processes: int = 0):
        """HIDDEN: the paths a submission must not see; BUILD: the grading build."""
        self.hidden = [pathlib.Path(p).resolve() for p in hidden]
        self.build = pathlib.Path(build).resolve()
        self.memory = int(memory_gib * (1 << 30))
        self.processes = processes or default_processes()
        self.bwrap = shutil.which("bwrap")
        self.root = os.geteuid() == 0
        self.switch_user = self.root  # as root: run as users of their own (STUDENT_UID, JUDGE_UID)
        self.cgroups, self.no_cgroup = Cgroups.find()
        self.filter = self.monitor = None
        self.why_not = "" if self.bwrap else "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        if not self.bwrap:
            return
        if not seccomp.supported():
            self.why_not = "no seccomp filter for this machine's architecture"
            return
        self.own = tempfile.TemporaryDirectory(prefix="tut-sandbox-")  # the filter and the monitor, read inside
        os.chmod(self.own.name, 0o755)
        self.filter = pathlib.Path(self.own.name) / "seccomp.bpf"
        self.filter.write_bytes(seccomp.program())
        self.monitor = pathlib.Path(self.own.name) / "monitor"
        done = subprocess.run(["cc", "-O2", "-o", str(self.monitor), str(MONITOR)], capture_output=True, text=True)
        if done.returncode != 0:
            self.why_not = f"the sandbox's monitor does not compile here (cc {MONITOR}): {done.stderr.strip()[-300:]}"
            return
        self.sockets, self.sockets_complete = socket_files(PRIVATE + ("/tmp",) + tuple(map(str, self.hidden)))
        probe = [sys.executable, "-I", "-c", f"open({str(ROOT / 'meson.build')!r}).read()"]
        done = self.run(probe, ROOT, limit=60)
        if done.code != 0 and self.switch_user:  # the checkout is not readable by other users, say
            self.switch_user = False
            done = self.run(probe, ROOT, limit=60)
        if done.code != 0:
            self.why_not = f"bubblewrap cannot set up its sandbox here: {done.output.strip()[-300:]}"

    @property
    def active(self) -> bool:
        return not self.why_not

    def describe(self) -> str:
        if not self.active:
            return f"NO SANDBOX: the submissions' code ran with the grader's rights ({self.why_not})"
        user = (f"users {STUDENT_UID} and {JUDGE_UID} (the judge)" if self.switch_user
                else "root, as nobody in a user namespace (user 65534 cannot read the checkout: root's files "
                     "and the monitor's pipe are readable inside)" if self.root
                else "the grader's user, as nobody in a user namespace")
        if self.cgroups:
            limits = (f"{self.memory / (1 << 30):.1f} GiB of memory and {self.processes} processes per sandbox "
                      f"(cgroup v{self.cgroups.version})")
        else:
            limits = (f"{self.memory / (1 << 30):.1f} GiB of data memory per process, "
                      + (f"{self.processes} processes per user" if self.switch_user else "processes not limited")
                      + f" (no cgroup: {self.no_cgroup})")
        sockets = "" if self.sockets_complete else " (the search for socket files ran out of time: some may be visible)"
        return (f"sandbox: bubblewrap, {user}, no network, no sockets{sockets}, no ptrace, checkout read-only "
                f"(only its build files, common, chapters, tests, tools), other submissions hidden, {limits}")

    def give(self, path: pathlib.Path, judge=False):
        """Hands PATH (a folder the sandbox writes) to the sandbox's user, where it has one."""
        if self.active and self.switch_user:
            uid = JUDGE_UID if judge else STUDENT_UID
            for place in [path, *path.rglob("*")]:
                os.lchown(place, uid, uid)

    def arguments(self, view: View, cwd, env: dict) -> list:
        args = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                "--unshare-uts", "--unshare-cgroup-try"]
        if not self.switch_user:
            args += ["--unshare-user", "--uid", str(STUDENT_UID), "--gid", str(STUDENT_UID), "--disable-userns"]
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for device in sorted(glob.glob("/dev/nvidia*")):
            args += ["--dev-bind", device, device]
        scratch = [pathlib.Path("/dev/shm"), pathlib.Path("/tmp")]  # anyone's to write, as usual, of a fixed size
        for place, size in zip(scratch, (SHM_BYTES, TMP_BYTES)):
            args += ["--perms", "1777", "--size", str(size), "--tmpfs", str(place)]
        emptied = list(scratch)  # the places replaced by an empty folder, where a mount point's parents must be made

        def empty(place):
            emptied.append(pathlib.Path(place))
            return ["--tmpfs", str(place)]

        def bind(how, source, target=None):
            """A mount, with the folders above it that an emptied place lacks made readable to all
            (bubblewrap makes them for root alone)."""
            target = pathlib.Path(target or source)
            made = [p for p in reversed(target.parents) if any(p.is_relative_to(e) and p != e for e in emptied)]
            return [a for p in made for a in ("--perms", "0755", "--dir", str(p))] + [how, str(source), str(target)]

        for place in PRIVATE:
            if os.path.isdir(place) and not os.path.islink(place):
                args += empty(place)
        for socket in self.sockets:
            args += ["--ro-bind-try", "/dev/null", socket]
        args += empty(ROOT)  # the checkout, but for what the build needs
        shown = [ROOT / name for name in VISIBLE if (ROOT / name).exists()]
        for place in shown:
            args += bind("--ro-bind", place)
        if view.build != "hidden":
            args += bind("--bind" if view.build == "rw" else "--ro-bind", self.build)
        else:
            args += empty(self.build)
        for path in self.hidden:
            if ROOT.is_relative_to(path) or self.build.is_relative_to(path):
                continue  # a folder around the checkout: hidden by the empty places above, where it can be
            if path.is_relative_to(ROOT) and not any(path.is_relative_to(p) for p in shown + [self.build]):
                continue  # in the checkout, outside what it shows: not there already
            if path.is_dir():
                args += empty(path)
            elif path.exists():
                args += ["--ro-bind", "/dev/null", str(path)]
        # the Python that runs Meson, the tools and the monitor, and its virtual environment, where
        # they live in a hidden place (a home, pyenv, conda, the checkout's .venv): read-only
        for prefix in dict.fromkeys((sys.base_prefix, sys.prefix)):  # where they are, and where they are named
            for place in dict.fromkeys((os.path.realpath(prefix), os.path.abspath(prefix))):
                args += bind("--ro-bind", os.path.realpath(prefix), place)
        for folder in (self.own.name, *view.readable):
            args += bind("--ro-bind", folder)
        for folder in view.writable:
            args += bind("--bind", folder)
        for place in emptied[len(scratch):]:  # the emptied places stay empty (the mounts in them keep their own mode)
            args += ["--remount-ro", str(place)]
        args += ["--chdir", str(cwd), "--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        kept = {k: v for k, v in os.environ.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}
        for name, value in {**kept, **FIXED_ENV, **env}.items():
            args += ["--setenv", name, str(value)]
        return args

    def run(self, cmd, cwd, env=None, limit: float = 300, view: View = View(), pass_fds=(), fetch=None,
            data_limit=True) -> Ran:
        """CMD in a sandbox of its own, in CWD, with ENV (and the few variables of KEPT) as its
        whole environment (LD_PRELOAD: for CMD alone), the descriptors PASS_FDS open, for at most
        LIMIT seconds; FETCH: a file of the sandbox to hand back (in its /tmp, say)."""
        return self.start(cmd, cwd, env, view, pass_fds, fetch, data_limit).wait(limit)

    def start(self, cmd, cwd, env=None, view: View = View(), pass_fds=(), fetch=None, data_limit=True):
        """As run(), without waiting: .wait(limit) gives its Ran."""
        env = dict(env or {})
        if not self.bwrap or not self.monitor:
            return Unconfined(cmd, cwd, env, pass_fds, self.memory if data_limit else 0, fetch)
        if "LD_PRELOAD" in env:
            env["TUT_PRELOAD"] = env.pop("LD_PRELOAD")
        return Running(self, cmd, cwd, env, view, pass_fds, fetch, data_limit)


class Running:
    """A sandboxed command on its way: its output read as it comes, its end awaited by wait()."""

    def __init__(self, box, cmd, cwd, env, view, pass_fds, fetch, data_limit):
        self.report, report_write = os.pipe()
        self.info, info_write = os.pipe()
        rules = os.open(box.filter, os.O_RDONLY)
        uid = str(JUDGE_UID if view.judge else STUDENT_UID) if box.switch_user else "-"
        inside = [str(box.monitor), str(report_write), uid, str(fetch or "-"), str(FETCH_BYTES), "--"]
        args = box.arguments(view, cwd, env) + ["--seccomp", str(rules), "--info-fd", str(info_write), "--",
                                                *inside, *map(str, cmd)]
        self.group = box.cgroups.make(box.memory, box.processes) if box.cgroups else None
        group, memory, processes = self.group, box.memory if data_limit else 0, box.processes
        count_processes = not group and box.switch_user  # per user: only where the sandbox has one of its own

        def limits():  # in the child, before it becomes bwrap: inherited by everything inside
            if group:
                group.attach()
            if memory:
                resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
            if count_processes:
                resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        output, output_write = os.pipe()
        self.start = time.monotonic()
        try:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=output_write, stderr=output_write,
                                            pass_fds=[report_write, info_write, rules, *pass_fds],
                                            start_new_session=True, preexec_fn=limits)
        except BaseException:
            if group:
                group.remove()
            raise
        finally:
            for fd in (report_write, info_write, rules, output_write):
                os.close(fd)
        self.capture = Capture(output)
        self.capture.start()
        self.stopped = False

    def stop(self):
        """Ends the sandbox before its command ends (its time is up)."""
        self.stopped = True
        os.killpg(self.process.pid, signal.SIGKILL)
        if self.group:
            self.group.kill()

    def wait(self, limit: float) -> Ran:
        timer = threading.Timer(max(0.0, limit - (time.monotonic() - self.start)), self.stop)
        timer.start()
        self.process.wait()  # no polling: it returns as the sandbox ends
        timer.cancel()
        timed_out = self.stopped
        seconds = time.monotonic() - self.start
        try:
            namespace = json.loads(read_all(self.info, 1 << 16, wait=0.5).decode(errors="replace") or "{}")
            namespace = namespace.get("pid-namespace") if isinstance(namespace, dict) else None
        except ValueError:
            namespace = None
        escaped = namespace_members(namespace) if namespace else set()
        for pid in escaped:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        out_of_memory = False
        if self.group:
            escaped |= set(self.group.processes())
            self.group.kill()
            out_of_memory = self.group.out_of_memory()
            self.group.remove()
        self.capture.join(timeout=5)
        report = parse_report(read_all(self.report, FETCH_BYTES + 4096))
        code = self.process.returncode
        code = int(report.get("status", code if code >= 0 else 128 - code))
        return Ran(code, self.capture.text(), seconds, timed_out, int(report.get("left", 0)), len(escaped),
                   out_of_memory, report.get("fetched", b""), "status" in report)


def parse_report(data: bytes) -> dict:
    """The monitor's report: 'status N', 'left N', then 'fetched LENGTH' and the file's bytes."""
    found = {}
    while data:
        line, _, data = data.partition(b"\n")
        words = line.decode(errors="replace").split()
        if len(words) != 2 or not words[1].isdigit():
            break
        if words[0] == "fetched":
            found["fetched"] = data[:int(words[1])]
            break
        found[words[0]] = int(words[1])
    return found


class Unconfined:
    """CMD as it is, where there is no sandbox: with the grader's rights, its output capped all the
    same. It has no /tmp of its own: a FETCH file under /tmp goes to a folder of its own instead
    (the path rewritten in CMD's arguments), so that commands share nothing there."""

    def __init__(self, cmd, cwd, env, pass_fds, memory, fetch=None):
        def limits():
            if memory:
                resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        self.scratch, self.fetch = None, fetch and pathlib.Path(fetch)
        if self.fetch and self.fetch.is_relative_to("/tmp"):
            self.scratch = tempfile.TemporaryDirectory(prefix="tut-unconfined-")
            moved = pathlib.Path(self.scratch.name) / self.fetch.relative_to("/tmp")
            cmd = [str(arg).replace(str(self.fetch), str(moved)) for arg in cmd]
            self.fetch = moved
        output, output_write = os.pipe()
        self.start = time.monotonic()
        try:
            self.process = subprocess.Popen(list(map(str, cmd)), cwd=cwd, env={**os.environ, **env},
                                            stdin=subprocess.DEVNULL, stdout=output_write, stderr=output_write,
                                            pass_fds=list(pass_fds), start_new_session=True, preexec_fn=limits)
        finally:
            os.close(output_write)
        self.capture = Capture(output)
        self.capture.start()

    def wait(self, limit: float) -> Ran:
        timed_out = False
        try:
            self.process.wait(timeout=max(0.0, limit - (time.monotonic() - self.start)))
        except subprocess.TimeoutExpired:
            timed_out = True
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # and whatever it left in its session
        except OSError:
            pass
        self.process.wait()
        self.capture.join(timeout=5)
        code = self.process.returncode
        fetched = b""
        if self.fetch:
            try:
                with open(self.fetch, "rb") as f:
                    fetched = f.read(FETCH_BYTES)
            except OSError:
                pass
        if self.scratch:
            self.scratch.cleanup()
        return Ran(code if code >= 0 else 128 - code, self.capture.text(), time.monotonic() - self.start, timed_out,
                   fetched=fetched)
