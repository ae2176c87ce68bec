"""Build hook of the motionfusion Python package (setuptools).

The Python sources are plain setuptools packages; this file adds one step to `build_py`: it builds
the Swift library product ``MotionFusionC`` and the command-line executable ``motionfusion`` in
release mode (``swift build -c release --product PRODUCT -Xswiftc -no-toolchain-stdlib-rpath
-Xlinker -rpath -Xlinker '$ORIGIN'``, in .build/python) and copies the shared library, its C
header, the executable (which the console script ``motionfusion`` runs) and the Swift runtime
libraries they load (found with ``ldd`` in the toolchain's folder) into ``motionfusion/_lib``,
where their ``$ORIGIN`` run path finds them. An editable install
(``pip install -e python``) puts them into the source folder ``python/motionfusion/_lib``.

It also builds one small CPython extension, ``motionfusion._step`` (motionfusion/_step.c): the
per-sample call of ``Filter.update``, which through ctypes cost twice VQF's. It is compiled against
the library's C header (Sources/MotionFusionC/include) and numpy's headers (numpy is a build
requirement) and does not link the library: it calls ``mf_filter_step`` at the address ctypes
finds in the library the package loaded, so both bindings use the same copy.

The Swift package is the repository this folder belongs to (``..``), or the copy an sdist carries
(``swift/``: Package.swift, Sources and Tests, added by the `sdist` step below), or the folder named
by ``MOTIONFUSION_SOURCE``. ``SWIFT`` names the swift driver (default: ``swift`` on PATH, else
/opt/swift/usr/bin/swift).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PRODUCT = "MotionFusionC"
LIBRARY = "libMotionFusionC.so"
#: The command line's product and executable, bundled for the console script.
EXECUTABLE = "motionfusion"
#: What an sdist carries of the Swift package (SwiftPM reads the whole manifest, tests included).
SWIFT_PACKAGE = ("Package.swift", "Sources", "Tests", "LICENSE")


def log(message: str) -> None:
    print(f"motionfusion build: {message}", file=sys.stderr, flush=True)


def swift_package() -> Path:
    """The Swift package to build: MOTIONFUSION_SOURCE, the sdist's copy, or the repository."""
    candidates = [Path(os.environ["MOTIONFUSION_SOURCE"])] if os.environ.get("MOTIONFUSION_SOURCE") else []
    candidates += [HERE / "swift", HERE.parent]
    for root in candidates:
        if (root / "Package.swift").is_file() and (root / "Sources" / PRODUCT).is_dir():
            return root.resolve()
    raise RuntimeError(
        f"no MotionFusion Swift package (Package.swift with Sources/{PRODUCT}) in {', '.join(map(str, candidates))}: "
        "build from python/ inside the repository, from an sdist, or set MOTIONFUSION_SOURCE to the repository")


def version() -> str:
    text = (swift_package() / "Sources/MotionFusionEstimation/Version.swift").read_text()
    m = re.search(r'motionFusionVersion\s*=\s*"([^"]+)"', text)
    if not m:
        raise RuntimeError("motionFusionVersion not found in Sources/MotionFusionEstimation/Version.swift")
    return m.group(1)


def swift() -> str:
    for candidate in (os.environ.get("SWIFT"), shutil.which("swift"), "/opt/swift/usr/bin/swift"):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError("the Swift toolchain was not found: put `swift` on PATH or set SWIFT")


def swift_build(root: Path) -> Path:
    """Builds the library and the executable with `$ORIGIN` as their only run path (without the
    toolchain's folder, which would come first and win wherever a toolchain sits at the same
    place); returns the build's bin folder. The flags differ from a plain `swift build`, so the
    build has a folder of its own (.build/python) and never forces the command line's build to
    start over."""
    flags = ["-c", "release", "--scratch-path", str(root / ".build" / "python"), "-Xswiftc", "-no-toolchain-stdlib-rpath",
             "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN"]
    for product in (PRODUCT, EXECUTABLE):
        command = [swift(), "build", *flags, "--product", product]
        log(" ".join(command) + f"  (in {root})")
        # The build's own output goes to stderr so pip shows it with -v and in failures.
        if subprocess.run(command, cwd=root, stdout=sys.stderr, stderr=sys.stderr).returncode != 0:
            raise RuntimeError(f"`{' '.join(command)}` failed")
    out = subprocess.run([swift(), "build", *flags, "--show-bin-path"], cwd=root, capture_output=True, text=True,
                         check=True).stdout
    return Path(out.strip().splitlines()[-1])


def swift_runtime(library: Path) -> list[Path]:
    """The Swift toolchain's shared libraries that `library` loads, directly or not: those ldd
    resolves into the toolchain's runtime folder (usr/lib/swift/linux beside the swift driver).
    System libraries stay with the system."""
    folder = Path(swift()).resolve().parent.parent / "lib" / "swift" / "linux"
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(filter(None, [str(folder), os.environ.get("LD_LIBRARY_PATH")])))
    text = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True, env=env).stdout
    resolved = {m.group(1): Path(m.group(2)) for m in re.finditer(r"^\s*(\S+)\s+=>\s+(/\S+)", text, re.M)}
    core = resolved.get("libswiftCore.so")
    if core is None:
        raise RuntimeError(f"ldd does not resolve libswiftCore.so for {library}:\n{text}")
    runtime = core.resolve().parent
    return sorted(p for p in resolved.values() if p.resolve().parent == runtime)


def install_library(target: Path) -> None:
    """Builds the Swift library and executable and copies them, the header and their Swift runtime
    into `target`."""
    root = swift_package()
    bin_folder = swift_build(root)
    library, executable = bin_folder / LIBRARY, bin_folder / EXECUTABLE
    for built in (library, executable):
        if not built.is_file():
            raise RuntimeError(f"swift build did not produce {built}")
    target.mkdir(parents=True, exist_ok=True)
    for old in [*target.glob("*.so*"), target / EXECUTABLE]:
        if old.exists():
            old.unlink()
    shutil.copyfile(root / "Sources/MotionFusionC/include/motionfusion.h", target / "motionfusion.h")
    runtime = sorted(set(swift_runtime(library)) | set(swift_runtime(executable)))
    # Stripped of what dynamic linking does not need (symbol tables, debug information): 80 MB
    # installed become 65 MB. Without binutils' strip they are copied as they are, and said so.
    strip = shutil.which("strip")
    if strip is None:
        log("strip (binutils) not found: the libraries are copied unstripped (about 15 MB larger installed)")
    for source in [library, executable, *runtime]:
        if strip is None or subprocess.run([strip, "--strip-unneeded", "-o", str(target / source.name),
                                            str(source)]).returncode:
            shutil.copyfile(source, target / source.name)
    (target / EXECUTABLE).chmod(0o755)  # the wheel keeps the mode, and pip installs it executable
    log(f"copied {LIBRARY}, {EXECUTABLE} and {len(runtime)} Swift runtime libraries into {target}")


class BuildWithSwift(build_py):
    """`build_py` plus the Swift library in motionfusion/_lib (in the source folder when editable)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            install_library(HERE / "motionfusion" / "_lib")
        else:
            install_library(Path(self.build_lib) / "motionfusion" / "_lib")


class SdistWithSwift(sdist):
    """The sdist carries the Swift package under swift/, so that it builds away from the repository."""

    def make_release_tree(self, base_dir, files) -> None:
        super().make_release_tree(base_dir, files)
        if (HERE / "swift").is_dir():  # building an sdist from an sdist
            return
        root = swift_package()
        for name in SWIFT_PACKAGE:
            source, target = root / name, Path(base_dir) / "swift" / name
            if source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns(".build", "__pycache__"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)


class BuildExtension(build_ext):
    """`build_ext` with the include folders of motionfusion._step: the library's C header (from the
    Swift package, found when the extension is built) and numpy's."""

    def build_extensions(self) -> None:
        import numpy

        include = [str(swift_package() / "Sources" / PRODUCT / "include"), numpy.get_include()]
        for extension in self.extensions:
            extension.include_dirs = include + list(extension.include_dirs)
        super().build_extensions()


setup(
    version=version(),
    # The per-sample call of Filter.update (mf_filter_step from C): the wheel is tagged for the
    # Python version it was built with (cp3XX-cp3XX-PLATFORM).
    ext_modules=[Extension("motionfusion._step", ["motionfusion/_step.c"], extra_compile_args=["-O2"])],
    cmdclass={"build_py": BuildWithSwift, "build_ext": BuildExtension, "sdist": SdistWithSwift},
)
