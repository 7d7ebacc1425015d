"""The chapters' stage lists, read the way chapters/meson.build reads them: which files a
submission may contribute, and the Meson tests that grade each stage."""
import dataclasses
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tool(name: str) -> str:
    """meson or ninja: on the PATH, else beside this Python (a virtual environment not activated)."""
    return shutil.which(name) or str(pathlib.Path(sys.executable).parent / name)


@dataclasses.dataclass(frozen=True)
class Stage:
    chapter: str  # the chapter's name in the build: heat, matmul, ...
    folder: str   # its folder: 01-heat, ...
    family: str   # the stage list it comes from: heat, part2data, ...
    name: str
    file: str     # in solutions/FOLDER/ and exercises/FOLDER/
    side: str     # cpu, gpu, multigpu, acc (OpenACC) or mpi (over MPI processes)
    has_idea: bool

    @property
    def test(self) -> str:
        """Its Meson test, named as chapters/meson.build names it."""
        own = self.family.replace("_", "-") == self.chapter
        return f"{self.chapter}-{'' if own else self.family + '-'}{self.name}"

    @property
    def key(self) -> str:
        """Its name in the chapter: NAME, or FAMILY/NAME in a chapter of several stage lists."""
        return self.name if self.family.replace("_", "-") == self.chapter else f"{self.family}/{self.name}"

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.file}"


def chapters() -> dict:
    """chapter folder -> (chapter name, [its stage list names]), from chapters/meson.build."""
    text = (ROOT / "chapters" / "meson.build").read_text()
    found = re.findall(r"'([\w-]+)': \{'dir': '([\w-]+)', 'lists': \[([^\]]*)\]", text)
    return {folder: (name, re.findall(r"'(\w+)'", lists)) for name, folder, lists in found}


def read_stages(folders=None) -> list:
    """Every stage of the chapters in FOLDERS (all by default), in stage-list order."""
    stages = []
    for folder, (chapter, families) in chapters().items():
        if folders and folder not in folders:
            continue
        for family in families:
            last = None
            for line in (ROOT / "chapters" / folder / f"{family}.stages").read_text().splitlines():
                if line.startswith("STAGE("):
                    name, file, side = (f.strip() for f in line[6:].split(",")[:3])
                    last = Stage(chapter, folder, family, name, file, side, False)
                    stages.append(last)
                elif line.startswith("IDEA(") and last:
                    stages[-1] = last = dataclasses.replace(last, has_idea=True)
    return stages


def stage_files(stages) -> list:
    """The files the stages live in, each once (one file can hold several stages)."""
    return list(dict.fromkeys(s.path for s in stages))
