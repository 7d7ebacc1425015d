"""Submissions: a student's exercises/ folder (or a clone of the whole course, or either one packed
as .zip, .tar, .tar.gz or .tgz). Only the stage files named in the stage lists are taken from
it; everything else it holds is listed as ignored, and the ignored files that differ from the
instructor's checkout as edited (the tests, common/ and the build files among them flagged)."""
import dataclasses
import pathlib
import re
import tarfile
import zipfile

from chapters import ROOT

ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")


class SubmissionError(Exception):
    pass


@dataclasses.dataclass
class Submission:
    name: str
    origin: pathlib.Path
    files: dict      # 'NN-chapter/file' -> its bytes, for the stage files it has
    ignored: list    # every other file it holds, relative to the submission
    edited: list = dataclasses.field(default_factory=list)  # the ignored ones unlike the checkout's, as in it


VERSION_CONTROL = {".git", ".hg", ".svn"}
GUARDED = ("tests/", "common/", "meson.build", "meson.options")  # and the stage lists


def flagged(path: str) -> bool:
    """Whether an edit of PATH (as in the checkout) would change how stages are tested or built."""
    return path.startswith(GUARDED) or path.endswith(".stages")


def edited(folder: pathlib.Path, root: pathlib.Path, ignored: list) -> list:
    """Of the IGNORED files of the submission in FOLDER (its stages in ROOT), those that differ
    from the checkout's or that it lacks, named as in the checkout; not version control."""
    course, prefix = (root.parent, "") if root.name == "exercises" else (root, "exercises/")
    found = []
    for name in ignored:
        path = folder / name
        if VERSION_CONTROL & set(pathlib.PurePosixPath(name).parts):
            continue
        mine = prefix + path.relative_to(course).as_posix() if path.is_relative_to(course) else name
        theirs = ROOT / mine
        if not theirs.is_file() or theirs.read_bytes() != path.read_bytes():
            found.append(mine)
    return sorted(found, key=lambda f: (not flagged(f), f))


def is_archive(path: pathlib.Path) -> bool:
    return path.is_file() and path.name.endswith(ARCHIVES)


def unreadable(path: pathlib.Path) -> str:
    """Why PATH cannot be a submission ('' if it can)."""
    return "" if path.is_dir() or is_archive(path) else "not a folder nor a .zip, .tar, .tar.gz or .tgz archive"


def name_of(path: pathlib.Path) -> str:
    """The student's name: a folder's, or a file's without its archive suffix (an archive this
    grader cannot read too, such as .rar or .tar.xz: it is reported as missing, under that name)."""
    for suffix in ARCHIVES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return re.sub(r"(\.tar)?\.[A-Za-z0-9]+$", "", path.name) if path.is_file() else path.name


def unpack(archive: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """Extract ARCHIVE under INTO, refusing members that would land outside it."""
    into.mkdir(parents=True, exist_ok=True)
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                members = z.namelist()
                check_members(archive, members)
                z.extractall(into)
        else:
            with tarfile.open(archive) as t:
                check_members(archive, [m.name for m in t.getmembers()])
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                t.extractall(into, members=[m for m in t.getmembers() if m.isfile() or m.isdir()], **safe)
    except (zipfile.BadZipFile, tarfile.TarError, OSError) as e:
        raise SubmissionError(f"{archive}: cannot unpack it ({e})") from e
    return into


def check_members(archive, names):
    for n in names:
        if n.startswith("/") or ".." in pathlib.PurePosixPath(n).parts:
            raise SubmissionError(f"{archive}: member {n!r} would be written outside the submission")


def stage_root(folder: pathlib.Path, wanted: list):
    """The folder under FOLDER (itself, exercises/, a top folder of an archive, ...: up to three
    levels down) that holds the most of the WANTED stage files, and how many it holds. Of a
    clone of the course, that is exercises/, never the solutions/ beside it."""
    candidates = [folder] + sorted(p for pattern in ("*", "*/*", "*/*/*") for p in folder.glob(pattern) if p.is_dir())
    counted = [(sum((c / w).is_file() for w in wanted), c.name == "exercises", c) for c in candidates
               if "solutions" not in c.relative_to(folder).parts]
    count, _, best = max(counted, key=lambda entry: entry[:2])
    return (best, count) if count else (folder, 0)


def expand(paths: list, wanted: list) -> list:
    """The submissions named on the command line: a folder whose top (or its exercises/) holds no
    stage file is a folder of submissions, one per entry."""
    found = []
    for path in paths:
        path = pathlib.Path(path)
        if not path.exists():
            raise SubmissionError(f"{path}: no such file or folder")
        if path.is_dir() and not any((path / top / w).is_file() for top in ("", "exercises") for w in wanted):
            # every entry, so that one in a format not read here is reported, not left out
            entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            if not entries:
                raise SubmissionError(f"{path}: holds none of the stage files and no submissions")
            found += entries
        elif why := unreadable(path):
            raise SubmissionError(f"{path}: {why}")
        else:
            found.append(path)
    names = [name_of(p) for p in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SubmissionError(f"two submissions are named {twice[0]!r}: give each its own name")
    return found


def load(path: pathlib.Path, wanted: list, every_stage_file: list, scratch: pathlib.Path) -> Submission:
    """The WANTED stage files of the submission at PATH; the files it holds that are no stage
    file of any chapter are the ignored ones."""
    if why := unreadable(path):
        raise SubmissionError(f"{path.name}: {why}")
    folder = unpack(path, scratch / name_of(path)) if is_archive(path) else path
    root, _ = stage_root(folder, wanted)
    files = {w: (root / w).read_bytes() for w in wanted if (root / w).is_file()}
    taken = {(root / w).resolve() for w in every_stage_file if (root / w).is_file()}
    ignored = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                     if p.is_file() and p.resolve() not in taken)
    return Submission(name_of(path), path, files, ignored, edited(folder, root, ignored))
