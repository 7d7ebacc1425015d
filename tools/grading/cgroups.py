"""A cgroup for each sandbox (sandbox.py), so that its memory and its processes are limited as a
whole, not process by process: version 1 (a hierarchy for each controller, memory and pids) or
version 2, under the grader's own cgroup or, where that one holds processes of its own, under
the hierarchy's root (a container's). Where none can be made, the sandbox says why, and limits
each process instead."""
import atexit
import os
import pathlib
import signal
import time


class Cgroups:
    """A cgroup per sandbox, for its memory and its processes together: version 1 (a hierarchy
    for each controller) or version 2, where this process may make one under its own."""

    def __init__(self, bases: dict, version: int):
        self.bases, self.version, self.made = bases, version, 0

    @staticmethod
    def find():
        """(Cgroups, '') where a sandbox's cgroup can be made here, else (None, why not)."""
        mounts = {}  # controller (or '' for version 2) -> where its hierarchy is mounted
        try:
            for line in open("/proc/self/mountinfo"):
                fields = line.split()
                kind = fields[fields.index("-") + 1]
                options = fields[fields.index("-") + 3].split(",")
                for controller in ("memory", "pids"):
                    if kind == "cgroup" and controller in options:
                        mounts[controller] = fields[4]
                if kind == "cgroup2":
                    mounts[""] = fields[4]
            mine = dict(line.strip().split(":", 2)[1:] for line in open("/proc/self/cgroup"))
        except (OSError, ValueError, IndexError) as e:
            return None, f"cannot read this process's cgroups ({e})"
        candidates = []
        if "memory" in mounts and "pids" in mounts:
            candidates.append(Cgroups({c: pathlib.Path(mounts[c] + "/" + mine.get(c, "/").lstrip("/"))
                                       for c in ("memory", "pids")}, 1))
        if "" in mounts:  # under this process's own cgroup, or the hierarchy's root (a container's)
            own = pathlib.Path(mounts[""] + "/" + mine.get("", "/").lstrip("/"))
            candidates += [Cgroups({"": base}, 2) for base in dict.fromkeys((own, pathlib.Path(mounts[""])))]
        if not candidates:
            return None, "no memory and pids cgroup controllers are mounted"
        reasons = []
        for found in candidates:
            try:
                found.make(64 << 20, 16).remove()
                return found, ""
            except OSError as e:
                reasons.append(f"not under {' and '.join(map(str, found.bases.values()))} ({e.strerror or e})")
        return None, "cannot make a cgroup here: " + "; ".join(reasons)

    def make(self, memory: int, processes: int) -> "Group":
        remove_emptied(wait=0)
        self.made += 1
        name = f"tut-grade-{os.getpid()}-{self.made}"
        paths = {c: base / name for c, base in self.bases.items()}
        group = Group(paths, self.version)
        for path in paths.values():
            path.mkdir()
        try:
            if self.version == 1:
                group.write("memory", "memory.limit_in_bytes", memory)
                group.write("memory", "memory.memsw.limit_in_bytes", memory, optional=True)  # no swap beyond it
                group.write("pids", "pids.max", processes)
            else:
                if not {"memory", "pids"} <= set(group.read("", "cgroup.controllers").split()):
                    # the parent hands its children no memory or pids controller yet: ask it to (a
                    # hierarchy's root may; a cgroup with processes of its own may not)
                    (self.bases[""] / "cgroup.subtree_control").write_text("+memory +pids")
                if not {"memory", "pids"} <= set(group.read("", "cgroup.controllers").split()):
                    raise OSError(0, "the memory and pids controllers are not delegated there")
                group.write("", "memory.max", memory)
                group.write("", "memory.swap.max", 0, optional=True)
                group.write("", "pids.max", processes)
        except OSError:
            group.remove()
            raise
        return group


class Group:
    def __init__(self, paths: dict, version: int):
        self.paths, self.version = paths, version

    def write(self, controller, name, value, optional=False):
        try:
            (self.paths[controller] / name).write_text(str(value))
        except OSError:
            if not optional:
                raise

    def read(self, controller, name) -> str:
        try:
            return (self.paths[controller] / name).read_text()
        except OSError:
            return ""

    def attach(self):
        """Puts the calling process in the group (run in the child, before it becomes bwrap)."""
        for path in self.paths.values():
            (path / "cgroup.procs").write_text("0" if self.version == 2 else str(os.getpid()))

    def processes(self) -> list:
        path = next(iter(self.paths.values()))
        return [int(p) for p in self.read(next(iter(self.paths)), "cgroup.procs").split()] if path.is_dir() else []

    def out_of_memory(self) -> bool:
        text = self.read("memory" if self.version == 1 else "", "memory.oom_control" if self.version == 1 else "memory.events")
        counts = dict(line.split()[:2] for line in text.splitlines() if len(line.split()) >= 2)
        return int(counts.get("oom_kill", "0")) > 0 or (self.version == 1 and self.read("memory", "memory.failcnt").strip() not in ("", "0"))

    def kill(self) -> int:
        """Kills every process in the group; how many there were."""
        found = set()
        for _ in range(100):
            alive = self.processes()
            if not alive:
                break
            found.update(alive)
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)
        return len(found)

    def remove(self):
        """Removes the group, now or, while its last processes are still ending, later."""
        for path in self.paths.values():
            try:
                path.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                EMPTYING.append(path)


EMPTYING = []  # cgroups whose processes were still ending when they were removed: removed later


@atexit.register
def remove_emptied(wait: float = 5.0):
    """Removes the cgroups of EMPTYING that are empty by now (waiting up to WAIT seconds for them)."""
    deadline = time.monotonic() + wait
    while EMPTYING:
        for path in list(EMPTYING):
            try:
                path.rmdir()
                EMPTYING.remove(path)
            except FileNotFoundError:
                EMPTYING.remove(path)
            except OSError:
                pass
        if not EMPTYING or time.monotonic() > deadline:
            break
        time.sleep(0.05)
