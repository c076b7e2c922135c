"""Compressing a library of clips from the command line:

    python -m runtime.importers.compress FILES... --out DIR [--skeleton FILE] [--units auto|m|cm]
                                         [--precision P] [--shell S] [--float-tolerance T]

A FILE is BVH text (its joints become a skeleton and its frames a clip, both built with the
ordinary builders) or a built clip file of this project (the "MAUL" container), which needs
the skeleton it was built on: --skeleton names that skeleton's file, one for every clip file
of the run (a BVH file brings its own). Each is compressed (clip.compress) and written into
DIR as <stem>.mclip, and for a BVH file its skeleton as <stem>.mskel beside it; then a table
of the clips' raw and compressed sizes, ratios and worst errors (with the bone and sample).

Refusals follow the house contract: one line on stderr and exit code 2. What can be checked
before any work (the options, the files' presence, --skeleton, DIR, two FILES with one
stem) is, and then nothing is written. The files are then done in order, each written under
a temporary name and renamed, so DIR never holds half a file; the first file that fails
stops the run (as make does: later files would hide the failure in a long table), the line
naming it and how many files before it were written complete.

Why here and not `python -m runtime.clip.compress`: the command reads BVH, and runtime.clip
sits below runtime.importers (tests/test_import_walls.py), so no module of runtime.clip may
import the reader; runtime.importers takes clip, pose and core, so the command is legal here,
and runtime.clip.compress stays the compressor alone, with no argument parsing.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from ..clip.build import build_clip
from ..clip.clip import Clip
from ..clip.compress import CompressOptions, CompressReport, compress_clip, default_compress_options
from ..core.builder import Builder
from ..core.container import MAGIC, FileKind
from ..core.errors import ManiError
from ..pose.skeleton import Skeleton, build_skeleton
from .bvh import read_bvh

PROG = "python -m runtime.importers.compress"
CLIP_SUFFIX = ".mclip"
SKELETON_SUFFIX = ".mskel"
CM = 100.0          # a centimetre rig's units per metre: the defaults scale by it


class Refusal(Exception):
    """Bad input: its text is the one line the command prints."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def _bound(option: str):
    def value(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(x) and x > 0):
            raise argparse.ArgumentTypeError(f"{text}: {option} is a finite number above 0")
        return x
    return value


def _paragraphs(*texts: str) -> str:
    return "\n\n".join(textwrap.fill(t, 78) for t in texts)


def parser() -> _Parser:
    d = default_compress_options()
    p = _Parser(prog=PROG, description="Compress BVH files and built clip files into DIR, "
                "every bone's shell within the precision at every sample.",
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog=_paragraphs(
                    "units: --precision and --shell are in the skeleton's own units. Their "
                    f"defaults are {d.precision:g} and {d.shell_distance:g} for a rig in metres "
                    "(0.1 mm at 3 cm), a hundred times larger for a rig in centimetres (0.01 at "
                    "3). --units auto (the default) takes BVH files as centimetres, as BVH is "
                    "written, and built clip files as metres, as the project builds them; --units "
                    "m or cm says so for every file. A value given on the command line is used as "
                    "it is for every file, unscaled.",
                    "the first file that fails stops the run: the files before it are complete "
                    "in DIR, nothing of it or after it is written; exit code 2."))
    p.add_argument("files", nargs="+", metavar="FILES", type=Path,
                   help="BVH files and built clip files (.mclip)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="where the compressed clips (and BVH files' skeletons) go; made if missing")
    p.add_argument("--skeleton", type=Path, metavar="FILE",
                   help="the built skeleton file (.mskel) the clip files were built on")
    p.add_argument("--units", choices=("auto", "m", "cm"), default="auto",
                   help="what the defaults of --precision and --shell are scaled for (see below)")
    p.add_argument("--precision", type=_bound("--precision"), metavar="P",
                   help="worst shell error allowed, in the skeleton's units")
    p.add_argument("--shell", type=_bound("--shell"), metavar="S",
                   help="shell distance (the virtual vertices' distance from each bone)")
    p.add_argument("--float-tolerance", type=_bound("--float-tolerance"), metavar="T",
                   default=d.float_tolerance, help=f"float tracks' error allowed (default {d.float_tolerance:g})")
    return p


@dataclass
class Row:
    """One compressed clip in the summary."""

    name: str
    units: str
    report: CompressReport
    worst_bone: str


def options_for(args, is_bvh: bool) -> tuple[CompressOptions, str]:
    """The options for one file and the unit its errors are in."""
    units = args.units if args.units != "auto" else ("cm" if is_bvh else "m")
    scale = CM if units == "cm" else 1.0
    d = default_compress_options()
    precision = args.precision if args.precision is not None else d.precision * scale
    shell = args.shell if args.shell is not None else d.shell_distance * scale
    return CompressOptions(precision, shell, args.float_tolerance), units


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise Refusal(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise Refusal(f"{what} {path}: a directory, not a file") from None
    except OSError as error:
        raise Refusal(f"{what} {path}: cannot be read ({error.strerror})") from None


def _outputs(path: Path, is_bvh: bool, out: Path) -> list[Path]:
    return [out / (path.stem + CLIP_SUFFIX)] + ([out / (path.stem + SKELETON_SUFFIX)] if is_bvh else [])


def check(args) -> Skeleton | None:
    """Everything checked before any work; the clip files' skeleton (None when none is given)."""
    kinds = {}
    for path in args.files:
        if not path.is_file():
            raise Refusal(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        try:
            with path.open("rb") as f:
                head = f.read(6)
        except OSError as error:
            raise Refusal(f"{path}: cannot be read ({error.strerror})") from None
        kinds[path] = head[:4] != MAGIC
        if head[:4] == MAGIC and int.from_bytes(head[4:6], "little") == FileKind.skeleton:
            raise Refusal(f"{path} is a skeleton file: give it with --skeleton FILE")
    seen = {}
    inputs = {p.resolve() for p in [*kinds, args.skeleton] if p is not None}
    for path, is_bvh in kinds.items():
        for target in _outputs(path, is_bvh, args.out):
            if target.name in seen and seen[target.name] != path:
                raise Refusal(f"{path} and {seen[target.name]} would both write {target.name}")
            if target.resolve() in inputs:
                raise Refusal(f"{path} would be written over an input, {target}: choose another --out")
            seen[target.name] = path
    skeleton = None
    if args.skeleton is not None:
        try:
            skeleton = Skeleton.open(_read(args.skeleton, "--skeleton"))
        except ManiError as error:
            raise Refusal(f"--skeleton {args.skeleton}: not a skeleton file ({error})") from None
    elif not all(kinds.values()):
        first = next(p for p, is_bvh in kinds.items() if not is_bvh)
        raise Refusal(f"{first} is a built clip file: give its skeleton with --skeleton FILE")
    _writable_folder(args.out)
    args.kinds = kinds
    return skeleton


def _writable_folder(out: Path) -> None:
    """Refuses --out when it cannot be a folder we write in (made here when missing)."""
    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise Refusal(f"--out {out}: {probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise Refusal(f"--out {out}: {probe} is not writable")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise Refusal(f"--out {out}: cannot be made ({error.strerror})") from None


def compress_file(path: Path, is_bvh: bool, skeleton: Skeleton | None, args) -> tuple[dict, Row]:
    """One file's outputs (path -> bytes) and its summary row; ManiError for bad content."""
    options, units = options_for(args, is_bvh)
    data = _read(path, "file")
    files = {}
    if is_bvh:
        imported = read_bvh(data, path.name)
        skeleton_data = build_skeleton(Builder(), imported.skeleton_source)
        skeleton = Skeleton.open(skeleton_data)
        clip = Clip(build_clip(Builder(), replace(imported.clip_source, skeleton=skeleton)))
        files[args.out / (path.stem + SKELETON_SUFFIX)] = skeleton_data
    else:
        clip = Clip(data)
    builder = Builder()
    report = compress_clip(builder, clip, skeleton, options)
    files[args.out / (path.stem + CLIP_SUFFIX)] = builder.built()
    bone = skeleton.bone_name(report.worst_bone) or "-"
    return files, Row(path.name, units, report, bone)


def write_whole(files: dict) -> None:
    """Each file under a temporary name in its folder, then renamed: a reader (or a failure)
    never sees half of one. The temporaries are removed if anything fails."""
    temps = {}
    try:
        for target, data in files.items():
            temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temps[temp] = target
            temp.write_bytes(bytes(data))
        for temp, target in temps.items():
            os.replace(temp, target)
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)


def table(rows: list[Row]) -> str:
    """The summary: a line per clip and the total."""
    head = ("clip", "raw bytes", "compressed", "ratio", "worst error", "bone", "sample")
    lines = []
    for r in rows:
        rep = r.report
        lines.append((r.name, f"{rep.raw_bytes:,}", f"{rep.compressed_bytes:,}", f"{rep.ratio:.2f}",
                      f"{rep.worst_error:.4g} {r.units}", r.worst_bone, str(rep.worst_sample)))
    raw = sum(r.report.raw_bytes for r in rows)
    packed = sum(r.report.compressed_bytes for r in rows)
    worst = max(rows, key=lambda r: r.report.worst_error / units_per_metre(r.units))
    lines.append((f"total ({len(rows)} clips)", f"{raw:,}", f"{packed:,}",
                  f"{raw / packed:.2f}" if packed else "-",
                  f"{worst.report.worst_error:.4g} {worst.units}", worst.worst_bone,
                  f"{worst.report.worst_sample} of {worst.name}"))
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    right = {1, 2, 3, 4, 6}

    def fmt(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), rule] + [fmt(x) for x in lines[:-1]] + [rule, fmt(lines[-1])])


def units_per_metre(units: str) -> float:
    """To compare errors across files in different units."""
    return 1.0 if units == "m" else CM


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        skeleton = check(args)
    except Refusal as refusal:
        print(f"{PROG}: {refusal}", file=sys.stderr)
        return 2
    rows, done = [], 0
    bar = tqdm(args.files, desc="compressing", unit="clip", disable=None, file=sys.stderr)
    try:
        for path in bar:
            bar.set_postfix_str(path.name)
            try:
                files, row = compress_file(path, args.kinds[path], skeleton, args)
                write_whole(files)
            except (ManiError, Refusal, OSError) as error:
                bar.close()
                text = error.strerror if isinstance(error, OSError) and error.strerror else error
                print(f"{PROG}: {path}: {text} (stopped; {done} of {len(args.files)} files "
                      f"written before it)", file=sys.stderr)
                return 2
            rows.append(row)
            done += 1
    finally:
        bar.close()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
