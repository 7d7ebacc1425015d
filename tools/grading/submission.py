"""Submissions: a student's exercises/ folder (or a clone of the whole course, or either one packed
as .zip, .tar, .tar.gz or .tgz). Only the stage files named in the stage lists are taken from
it; everything else it holds is listed as ignored, and the ignored files that differ from the
instructor's checkout as edited (the tests, common/ and the build files among them flagged).

Nothing in a submission is followed: a symbolic link (the submission itself, a folder in it or a
stage file) is refused, and so is a stage file that is not a regular file or is larger than
STAGE_BYTES. An archive is unpacked into a folder of the grader's that no name in it can choose,
and only while it stays within UNPACKED_BYTES and MOST_FILES. A student's name, as it reaches the
report and the terminal, is cut to its printable characters (printable())."""
import dataclasses
import os
import pathlib
import re
import stat
import tarfile
import zipfile

from chapters import ROOT

ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")
STAGE_BYTES = 1 << 20         # a stage file larger than this is refused
COMPARED_BYTES = 4 << 20      # an ignored file larger than this is compared by its size only
UNPACKED_BYTES = 512 << 20    # what an archive may unpack to
MOST_FILES = 20000            # entries a submission may hold
NAME_CHARACTERS = 80


class SubmissionError(Exception):
    pass


@dataclasses.dataclass
class Submission:
    name: str
    origin: pathlib.Path
    files: dict      # 'NN-chapter/file' -> its bytes, for the stage files it has
    ignored: list    # every other file it holds, relative to the submission
    edited: list = dataclasses.field(default_factory=list)  # the ignored ones unlike the checkout's, as in it
    refused: dict = dataclasses.field(default_factory=dict)  # 'NN-chapter/file' -> why it was not taken


VERSION_CONTROL = {".git", ".hg", ".svn"}
GUARDED = ("tests/", "common/", "meson.build", "meson.options")  # and the stage lists


def printable(text: str, most: int = NAME_CHARACTERS) -> str:
    """TEXT with every control, format or separator character (terminal escapes, bidirectional
    overrides, new lines) as '?', cut to MOST characters."""
    shown = "".join(c if c.isprintable() else "?" for c in str(text))
    return shown if len(shown) <= most else shown[:most - 3] + "..."


def flagged(path: str) -> bool:
    """Whether an edit of PATH (as in the checkout) would change how stages are tested or built."""
    return path.startswith(GUARDED) or path.endswith(".stages")


def same_as(path: pathlib.Path, theirs: pathlib.Path) -> bool:
    """Whether the regular file PATH holds what the checkout's THEIRS does (by size alone where
    they are large)."""
    try:
        size = path.lstat().st_size
        if not theirs.is_file() or theirs.stat().st_size != size:
            return False
        return size > COMPARED_BYTES or theirs.read_bytes() == read_regular(path, COMPARED_BYTES)
    except OSError:
        return False


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
        if not same_as(path, ROOT / mine):
            found.append(mine)
    return sorted(found, key=lambda f: (not flagged(f), f))


def is_archive(path: pathlib.Path) -> bool:
    return path.is_file() and not path.is_symlink() and path.name.endswith(ARCHIVES)


def unreadable(path: pathlib.Path) -> str:
    """Why PATH cannot be a submission ('' if it can)."""
    if path.is_symlink():
        return "refused: it is a symbolic link (the grader follows none)"
    return "" if path.is_dir() or is_archive(path) else "not a folder nor a .zip, .tar, .tar.gz or .tgz archive"


def name_of(path: pathlib.Path) -> str:
    """The student's name: a folder's, or a file's without its archive suffix (an archive this
    grader cannot read too, such as .rar or .tar.xz: it is reported as missing, under that name)."""
    for suffix in ARCHIVES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return re.sub(r"(\.tar)?\.[A-Za-z0-9]+$", "", path.name) if path.is_file() else path.name


def unpack(archive: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """Extract ARCHIVE under INTO (regular files and folders only), refusing members that would
    land outside it and archives that unpack to more than UNPACKED_BYTES or MOST_FILES entries."""
    into.mkdir(parents=True)
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                members = z.infolist()
                check_members(archive, [m.filename for m in members], sum(m.file_size for m in members))
                for m in members:
                    if not m.is_dir() and stat.S_ISLNK(m.external_attr >> 16):
                        continue  # a link: not taken (zipfile would write it as a file holding its target)
                    z.extract(m, into)
        else:
            with tarfile.open(archive) as t:
                members = [m for m in t.getmembers() if m.isfile() or m.isdir()]  # no links, devices, FIFOs
                check_members(archive, [m.name for m in t.getmembers()], sum(m.size for m in members))
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                t.extractall(into, members=members, **safe)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
        raise SubmissionError(f"{printable(archive.name)}: cannot unpack it ({printable(str(e), 200)})") from e
    return into


def check_members(archive, names, size):
    if len(names) > MOST_FILES:
        raise SubmissionError(f"{printable(archive.name)}: holds {len(names)} entries, more than the {MOST_FILES} taken")
    if size > UNPACKED_BYTES:
        raise SubmissionError(f"{printable(archive.name)}: unpacks to {size >> 20} MiB, more than the "
                              f"{UNPACKED_BYTES >> 20} MiB taken")
    for n in names:
        if n.startswith("/") or ".." in pathlib.PurePosixPath(n).parts:
            raise SubmissionError(f"{printable(archive.name)}: member {printable(n, 200)!r} would be written outside "
                                  "the submission")


def walk(folder: pathlib.Path):
    """(its folders, its regular files, its other entries: links and the like), never following a
    link; at most MOST_FILES entries."""
    folders, files, others = [folder], [], []
    for top, dirs, names in os.walk(folder, followlinks=False):
        for name in dirs + names:
            path = pathlib.Path(top) / name
            mode = path.lstat().st_mode
            (folders if stat.S_ISDIR(mode) else files if stat.S_ISREG(mode) else others).append(path)
        if len(folders) + len(files) + len(others) > MOST_FILES:
            raise SubmissionError(f"holds more than {MOST_FILES} entries")
    return folders, files, others


def stage_root(folder: pathlib.Path, folders: list, wanted: list):
    """The folder under FOLDER (itself, exercises/, a top folder of an archive, ...: up to three
    levels down) that holds the most of the WANTED stage files, and how many it holds. Of a
    clone of the course, that is exercises/, never the solutions/ beside it."""
    candidates = [f for f in folders if len(f.relative_to(folder).parts) <= 3
                  and "solutions" not in f.relative_to(folder).parts]
    counted = [(sum(os.path.lexists(c / w) for w in wanted), c.name == "exercises", c)
               for c in sorted(candidates)]
    count, _, best = max(counted, key=lambda entry: entry[:2])
    return (best, count) if count else (folder, 0)


def expand(paths: list, wanted: list) -> list:
    """The submissions named on the command line, as (path, name): a folder whose top (or its
    exercises/) holds no stage file is a folder of submissions, one per entry. Names are
    printable() and made unique ('alice', 'alice (2)')."""
    found = []
    for path in paths:
        path = pathlib.Path(path)
        if not path.exists() and not path.is_symlink():
            raise SubmissionError(f"{path}: no such file or folder")
        if path.is_dir() and not path.is_symlink() and not any(
                (path / top / w).is_file() for top in ("", "exercises") for w in wanted):
            # every entry, so that one in a format not read here is reported, not left out
            entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            if not entries:
                raise SubmissionError(f"{path}: holds none of the stage files and no submissions")
            found += entries
        elif (why := unreadable(path)) and not why.startswith("refused"):
            raise SubmissionError(f"{path}: {why}")
        else:
            found.append(path)
    named, seen = [], {}
    for path in found:
        name = printable(name_of(path)) or "?"
        seen[name] = seen.get(name, 0) + 1
        named.append((path, name if seen[name] == 1 else f"{name} ({seen[name]})"))
    return named


def read_regular(path: pathlib.Path, most: int) -> bytes:
    """Up to MOST bytes of PATH, opened without following a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        return f.read(most)


def take(folder: pathlib.Path, root: pathlib.Path, name: str):
    """(the bytes of stage file NAME under ROOT, why it is refused): one of the two is None."""
    path = root / name
    for part in [path, *path.parents]:
        if part == folder:
            break
        if part.is_symlink():
            return None, f"refused: {printable(part.relative_to(folder).as_posix(), 200)} is a symbolic link (the grader follows none)"
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None, None
    if not stat.S_ISREG(mode):
        return None, f"refused: {printable(path.relative_to(folder).as_posix(), 200)} is not a regular file"
    data = read_regular(path, STAGE_BYTES + 1)
    if len(data) > STAGE_BYTES:
        return None, f"refused: {printable(path.relative_to(folder).as_posix(), 200)} is larger than {STAGE_BYTES >> 20} MiB"
    return data, None


def load(path: pathlib.Path, name: str, wanted: list, every_stage_file: list, unpacked: pathlib.Path) -> Submission:
    """The WANTED stage files of the submission at PATH (an archive: unpacked into UNPACKED, a
    folder of the grader's); the files it holds that are no stage file of any chapter are the
    ignored ones."""
    if why := unreadable(path):
        raise SubmissionError(why)
    folder = unpack(path, unpacked) if is_archive(path) else path
    folders, regular, others = walk(folder)
    root, _ = stage_root(folder, folders, wanted)
    files, refused = {}, {}
    for w in wanted:
        data, why = take(folder, root, w)
        if data is not None:
            files[w] = data
        elif why:
            refused[w] = why
    taken = {root / w for w in every_stage_file}  # of every chapter, graded or not
    ignored = sorted(p.relative_to(folder).as_posix() for p in regular + others if p not in taken)
    kept = sorted(p.relative_to(folder).as_posix() for p in regular if p not in taken)
    return Submission(name, path, files, ignored, edited(folder, root, kept), refused)
