"""In-tree PEP 517 build backend of the motionfusion Python package.

It builds the Swift library product ``MotionFusionC`` in release mode from the repository this
folder belongs to (``swift build -c release --product MotionFusionC``), and writes the wheel itself
with the standard library only (so there are no build dependencies and pip's build isolation needs
no network): the Python sources, the shared library, its C header, and the Swift runtime libraries
it loads (found with ``ldd``) next to it. The library's run path is rewritten to ``$ORIGIN`` so the
installed package uses its own copies and does not need the toolchain at run time.

Environment: ``SWIFT`` names the swift driver (default: ``swift`` on PATH, else
/opt/swift/usr/bin/swift); ``MOTIONFUSION_SOURCE`` names the repository when this folder was
copied away from it.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: get_requires_for_build_wheel asks for tomli
    tomllib = None

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent  # python/
PRODUCT = "MotionFusionC"
LIBRARY = "libMotionFusionC.so"


# ---- PEP 517 hooks ------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return [] if tomllib is not None else ["tomli>=1.1"]


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = _dist_info_name()
    target = Path(metadata_directory) / info
    target.mkdir(parents=True, exist_ok=True)
    for name, data in _metadata_files().items():
        (target / name).write_bytes(data)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = _repository()
    bin_dir = _swift_build(root)
    library = bin_dir / LIBRARY
    if not library.is_file():
        raise RuntimeError(f"swift build did not produce {library}")
    files: dict[str, bytes] = {}
    for path in sorted((PROJECT / "motionfusion").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in {".py", ".typed"}:
            files[path.relative_to(PROJECT).as_posix()] = path.read_bytes()
    files[f"motionfusion/_lib/{LIBRARY}"] = _with_origin_runpath(_without_debug_info(library))
    files["motionfusion/_lib/motionfusion.h"] = (root / "Sources/MotionFusionC/include/motionfusion.h").read_bytes()
    for dep in _swift_runtime(library):
        files[f"motionfusion/_lib/{dep.name}"] = dep.read_bytes()
    info = _dist_info_name()
    for name, data in _metadata_files().items():
        files[f"{info}/{name}"] = data
    files[f"{info}/LICENSE"] = (root / "LICENSE").read_bytes()
    wheel_name = f"motionfusion-{_version()}-py3-none-{_platform_tag()}.whl"
    _write_wheel(Path(wheel_directory) / wheel_name, files, info)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError(
        "motionfusion is built from the MotionFusion repository (the Swift sources sit beside python/): "
        "use `pip install ./python` or `pip wheel ./python` there; there is no source distribution")


# ---- Building -----------------------------------------------------------------------------------

def _log(message: str) -> None:
    print(f"motionfusion build: {message}", file=sys.stderr, flush=True)


def _repository() -> Path:
    """The Swift package this folder belongs to."""
    root = Path(os.environ.get("MOTIONFUSION_SOURCE", PROJECT.parent)).resolve()
    if not (root / "Package.swift").is_file() or not (root / "Sources" / PRODUCT).is_dir():
        raise RuntimeError(
            f"{root} is not the MotionFusion repository (no Package.swift with Sources/{PRODUCT}); "
            "build from python/ inside the repository, or set MOTIONFUSION_SOURCE to it")
    return root


def _swift() -> str:
    for candidate in (os.environ.get("SWIFT"), shutil.which("swift"), "/opt/swift/usr/bin/swift"):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError("the Swift toolchain was not found: put `swift` on PATH or set SWIFT")


def _swift_build(root: Path) -> Path:
    swift = _swift()
    command = [swift, "build", "-c", "release", "--product", PRODUCT]
    _log(" ".join(command) + f"  (in {root})")
    # The build's own output goes to stderr so pip shows it with -v and in failures.
    result = subprocess.run(command, cwd=root, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"`{' '.join(command)}` failed with status {result.returncode}")
    out = subprocess.run([swift, "build", "-c", "release", "--show-bin-path"], cwd=root,
                         capture_output=True, text=True, check=True).stdout.strip()
    return Path(out.splitlines()[-1])


def _swift_runtime(library: Path) -> list[Path]:
    """The shared libraries of the Swift toolchain that `library` loads (directly or not): every
    library ldd resolves into the folder of libswiftCore.so. System libraries stay with the system."""
    text = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True).stdout
    resolved = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(/\S+)", line)
        if m:
            resolved[m.group(1)] = Path(m.group(2))
    core = resolved.get("libswiftCore.so")
    if core is None:
        raise RuntimeError(f"ldd does not resolve libswiftCore.so for {library}:\n{text}")
    runtime = core.resolve().parent
    deps = sorted(p for p in resolved.values() if p.resolve().parent == runtime)
    _log(f"bundling {len(deps)} Swift runtime libraries from {runtime}")
    return deps


def _without_debug_info(library: Path) -> bytes:
    """The library without its debug sections (`strip --strip-debug`, when binutils is there)."""
    strip = shutil.which("strip")
    if strip is None:
        return library.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / library.name
        if subprocess.run([strip, "--strip-debug", "-o", str(out), str(library)]).returncode != 0:
            return library.read_bytes()
        return out.read_bytes()


def _with_origin_runpath(elf: bytes) -> bytes:
    """The ELF shared library with its DT_RUNPATH (or DT_RPATH) replaced by `$ORIGIN`, in place:
    the new string is never longer than the old one, which is padded with NUL bytes."""
    data = bytearray(elf)
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise RuntimeError("expected a 64-bit little-endian ELF library")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise RuntimeError("the library has no dynamic section")

    def file_offset(vaddr: int) -> int:
        for start, offset, size in loads:
            if start <= vaddr < start + size:
                return vaddr - start + offset
        raise RuntimeError(f"address {vaddr:#x} is in no loaded segment")

    strtab, paths = None, []
    for k in range(dynamic[1] // 16):
        tag, value = struct.unpack_from("<qQ", data, dynamic[0] + 16 * k)
        if tag == 0:
            break
        if tag == 5:
            strtab = value
        elif tag in (15, 29):  # DT_RPATH, DT_RUNPATH
            paths.append(value)
    if strtab is None or not paths:
        raise RuntimeError("the library has no run path to rewrite")
    new = b"$ORIGIN"
    for index in paths:
        start = file_offset(strtab) + index
        end = data.index(b"\0", start)
        if end - start < len(new):
            raise RuntimeError("the run path is too short to rewrite in place")
        data[start:end] = new + b"\0" * (end - start - len(new))
    return bytes(data)


# ---- Metadata and the wheel ---------------------------------------------------------------------

def _project() -> dict:
    global tomllib
    if tomllib is None:
        import tomli as tomllib  # noqa: F811 (Python 3.10, installed by get_requires_for_build_wheel)
    with open(PROJECT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    text = (_repository() / "Sources/MotionFusionCore/Version.swift").read_text()
    m = re.search(r'motionFusionVersion\s*=\s*"([^"]+)"', text)
    if not m:
        raise RuntimeError("motionFusionVersion not found in Sources/MotionFusionCore/Version.swift")
    return m.group(1)


def _dist_info_name() -> str:
    return f"motionfusion-{_version()}.dist-info"


def _platform_tag() -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _metadata_files() -> dict[str, bytes]:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {_version()}",
        f"Summary: {p['description']}",
        f"License: {p['license']['text']}",
        f"Requires-Python: {p['requires-python']}",
    ]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    readme = (PROJECT / p["readme"]).read_text()
    lines += ["Description-Content-Type: text/markdown", "", readme]
    metadata = "\n".join(lines).encode()
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: motionfusion in-tree backend\n"
        "Root-Is-Purelib: false\n"
        f"Tag: py3-none-{_platform_tag()}\n"
    ).encode()
    scripts = p.get("scripts", {})
    entry = ("[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())).encode()
    return {"METADATA": metadata, "WHEEL": wheel, "entry_points.txt": entry}


def _write_wheel(path: Path, files: dict[str, bytes], info: str) -> None:
    def digest(data: bytes) -> str:
        return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    record = io.StringIO()
    tmp = path.with_suffix(".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            z.writestr(zi, data)
            record.write(f"{name},{digest(data)},{len(data)}\n")
        record.write(f"{info}/RECORD,,\n")
        zi = zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        z.writestr(zi, record.getvalue())
    os.replace(tmp, path)
    _log(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
