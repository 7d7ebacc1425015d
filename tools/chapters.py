"""The chapters and their stages, as chapters/chapters.list and the stage lists describe them:
the one view every tool takes (the grader, the plots, the profile and benchmark scripts, the
exercise generator), read the way chapters/meson.build reads them. Run as a program, it prints
what a shell script needs: `python3 tools/chapters.py stages 02-matmul gpu` lists the GPU stages,
`python3 tools/chapters.py show 01-heat block_shapes` the stages a benchmark sweeps together.
"""
import dataclasses
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def tool(name: str) -> str:
    """meson or ninja: on the PATH, else beside this Python (a virtual environment not activated)."""
    return shutil.which(name) or str(pathlib.Path(sys.executable).parent / name)


@dataclasses.dataclass(frozen=True)
class Chapter:
    name: str     # its name in the build: heat, matmul, ... (tests heat-*)
    folder: str   # 01-heat, ...
    lists: tuple  # its stage lists, one per family: heat, or part2data and force
    timing: dict  # list -> the program and arguments that time its GPU stages ({stages} or {stage})
    untimed: tuple  # GPU stages that --perf leaves out
    shows: dict   # NAME -> the stages (or stage variants) a benchmark or a lesson's table shows together
    support: tuple = ()  # the sources in its folder that every stage links with


@dataclasses.dataclass(frozen=True)
class Stage:
    chapter: str  # the chapter's name in the build: heat, matmul, ...
    folder: str   # its folder: 01-heat, ...
    family: str   # the stage list it comes from: heat, part2data, ...
    name: str
    file: str     # in solutions/FOLDER/ and exercises/FOLDER/
    side: str     # cpu, gpu, multigpu, acc (OpenACC) or mpi (over MPI processes)
    has_idea: bool
    calls: tuple = ()  # the other stages' files and the libraries its file calls (its CALLS line)

    @property
    def own_list(self) -> bool:
        """Whether its list is named after the chapter (then its names need no family)."""
        return self.family.replace("_", "-") == self.chapter

    @property
    def test(self) -> str:
        """Its Meson test, named as chapters/meson.build names it."""
        return f"{self.chapter}-{'' if self.own_list else self.family + '-'}{self.name}"

    @property
    def key(self) -> str:
        """Its name in the chapter: NAME, or FAMILY/NAME in a chapter of several stage lists."""
        return self.name if self.own_list else f"{self.family}/{self.name}"

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.file}"


def read_chapters() -> dict:
    """folder -> Chapter, from chapters/chapters.list, in its order."""
    found, fields = {}, {}
    for line in (ROOT / "chapters" / "chapters.list").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split()
        if not line.startswith(" "):
            name, folder, *words = words
            fields[folder] = {"name": name, "folder": folder, "lists": [], "timing": {}, "untimed": [], "shows": {},
                              "support": []}
        for word in words:
            key, _, value = word.partition("=")
            if key in ("lists", "untimed", "support"):
                fields[folder][key] += value.split(",")
            elif key == "timing":
                family, _, command = value.partition(":")
                fields[folder]["timing"][family] = command.split(",")
            elif key == "show":
                selection, _, names = value.partition(":")
                fields[folder]["shows"][selection] = names.split(",")
    for folder, f in fields.items():
        found[folder] = Chapter(f["name"], folder, tuple(f["lists"]), f["timing"], tuple(f["untimed"]), f["shows"],
                                tuple(f["support"]))
    return found


def read_stages(folders=None) -> list:
    """Every stage of the chapters in FOLDERS (all by default), in stage-list order."""
    stages = []
    for folder, c in read_chapters().items():
        if folders and folder not in folders:
            continue
        for family in c.lists:
            last = None
            for line in (ROOT / "chapters" / folder / f"{family}.stages").read_text().splitlines():
                if line.startswith("STAGE("):
                    name, file, side = (f.strip() for f in line[6:].split(",")[:3])
                    last = Stage(c.name, folder, family, name, file, side, False)
                    stages.append(last)
                elif line.startswith("IDEA(") and last:
                    stages[-1] = last = dataclasses.replace(last, has_idea=True)
                elif line.startswith("CALLS("):
                    name, *callees = (f.strip() for f in line[6:line.rindex(")")].split(","))
                    if not last or name != last.name:
                        raise ValueError(f"chapters/{folder}/{family}.stages: CALLS({name}, ...) must follow the line of its stage")
                    stages[-1] = last = dataclasses.replace(last, calls=tuple(callees))
    return stages


def show(folder: str, selection: str) -> list:
    """The stages that chapters.list's `show=SELECTION:...` of FOLDER names, in its order."""
    shows = read_chapters()[folder].shows
    if selection not in shows:
        raise KeyError(f"chapters.list: {folder} shows no {selection!r}; its selections: {', '.join(shows) or 'none'}")
    return shows[selection]


def stage_files(stages) -> list:
    """The files the stages live in, each once (one file can hold several stages)."""
    return list(dict.fromkeys(s.path for s in stages))


def main(argv) -> int:
    from plotting import Parser  # the tools' one-line usage errors
    parser = Parser(__doc__ + USAGE, prog="chapters.py")
    parser.add_argument("what", choices=["chapters", "stages", "show"])
    parser.add_argument("folder", nargs="?")
    parser.add_argument("side", nargs="?", help="cpu, gpu, multigpu, acc or mpi; for show: the selection")
    parser.add_argument("--list", dest="family")
    timing = parser.add_mutually_exclusive_group()  # both would list nothing
    timing.add_argument("--timed", action="store_true")
    timing.add_argument("--untimed", action="store_true")
    args = parser.parse_args(argv)
    known = read_chapters()
    if args.what == "chapters":
        if args.folder or args.side or args.family or args.timed or args.untimed:
            parser.error("chapters takes no other argument")
        print("\n".join(known))
        return 0
    if args.folder not in known:
        parser.error(f"no chapter {args.folder!r}; these have stages: {', '.join(known)}")
    if args.what == "show":
        if not args.side:
            parser.error(f"show {args.folder} needs a selection: {', '.join(known[args.folder].shows) or 'it has none'}")
        try:
            print(",".join(show(args.folder, args.side)))
        except KeyError as e:
            parser.error(e.args[0])
        return 0
    if args.side not in (None, "cpu", "gpu", "multigpu", "acc", "mpi"):
        parser.error(f"no side {args.side!r}: cpu, gpu, multigpu, acc or mpi")
    untimed = known[args.folder].untimed
    if args.family and args.family not in known[args.folder].lists:
        parser.error(f"--list: {args.folder} has no list {args.family!r}; its lists: {', '.join(known[args.folder].lists)}")
    chosen = [s for s in read_stages([args.folder]) if (not args.side or s.side == args.side)
              and (not args.timed or s.name not in untimed) and (not args.untimed or s.name in untimed)
              and (not args.family or s.family == args.family)]
    print("\n".join(s.name if args.family else s.key for s in chosen))
    return 0


USAGE = """
Usage: chapters.py chapters                       the folders of the chapters with stages
       chapters.py stages FOLDER [SIDE] [--timed | --untimed] [--list LIST]
                                                  a chapter's stages in lesson order, one per line
       chapters.py show FOLDER SELECTION          the stages a benchmark or table shows together
                                                  (chapters.list's show=), comma-separated
  SIDE       cpu, gpu, multigpu, acc or mpi: that side's stages only
  --timed    without the stages that chapters.list marks untimed (one GPU thread: minutes at a
             benchmark's sizes); --untimed: those alone
  --list   that stage list's stages, by name (without LIST/ before it)
"""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
