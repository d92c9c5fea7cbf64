"""Where Apache Paimon 0.9.0's Java library lives, and the install step that puts it there.

The jar is ``deps/jars/paimon-python-java-bridge-0.9.0.jar`` inside PyPI's ``pypaimon==0.2.0`` *source
distribution* (it bundles paimon-bundle: paimon-core, paimon-common, paimon-format). The project's install step
(``scripts/_env.sh``, ``binder/postBuild``) runs ``python -m explorer.paimon.java_jar``: pip, the registry's own
client, downloads exactly that file by name and version with its sha256 pinned, and only the jar is extracted
into the explorer's cache. Nothing here downloads at run time: :func:`paimon_jar` names the file, and
:func:`require_paimon_jar` says how to install it when it is missing.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from explorer import settings
from explorer.scenario.errors import EngineError

PAIMON_VERSION = "0.9.0"
SDIST = "pypaimon==0.2.0"
# sha256 of pypaimon-0.2.0.tar.gz on PyPI and of the jar inside it (checked on install and before first use).
SDIST_SHA256 = "43ac684779841da17528b5f241ede6149bcdab4d16f3cd80f713262f6ed04720"
JAR_SHA256 = "dc9048366715fc75d2b44e3f8ac1dbfab011b8c34aafc26ffa216500fb890b0e"
JAR_MEMBER = "pypaimon-0.2.0/deps/jars/paimon-python-java-bridge-0.9.0.jar"
JAR_NAME = "paimon-python-java-bridge-0.9.0.jar"
JAR_ENV = settings.PAIMON_JAR.name
INSTALL_HINT = "bash scripts/test (or bash scripts/lab), or: python -m explorer.paimon.java_jar"


def cache_dir() -> Path:
    """The explorer's cache (``EXPLORER_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or ``~/.cache``)/sequence-explorer."""
    return settings.cache_dir()


def paimon_jar() -> Path:
    """Where the jar is (``EXPLORER_PAIMON_JAR`` overrides); it may not exist yet."""
    return settings.PAIMON_JAR.get() or cache_dir() / "paimon" / JAR_NAME


def require_paimon_jar() -> Path:
    """The jar, or an EngineError that says how to install it (never a download)."""
    jar = paimon_jar()
    if not jar.is_file():
        raise EngineError(f"Paimon {PAIMON_VERSION}'s Java library is not installed (expected {jar.name} in the "
                          f"explorer's cache). Install it with: {INSTALL_HINT}", field="engine")
    return jar


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def install(*, quiet: bool = True) -> Path:
    """Download ``pypaimon==0.2.0``'s source distribution with pip (hash pinned) and extract only the jar."""
    target = paimon_jar()
    if target.is_file() and _sha256(target) == JAR_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="paimon-sdist-") as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text(f"{SDIST} --hash=sha256:{SDIST_SHA256}\n", encoding="utf-8")
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   "--require-hashes", "-r", str(requirements), "-d", tmp]
        if quiet:
            command.append("-q")
        subprocess.run(command, check=True)
        sdist = next(Path(tmp).glob("pypaimon-0.2.0.tar.gz"))
        if _sha256(sdist) != SDIST_SHA256:  # pip checked it already; a second look costs nothing
            raise SystemExit(f"{sdist.name}: sha256 differs from the pinned one")
        with tarfile.open(sdist, "r:gz") as archive:
            member = archive.getmember(JAR_MEMBER)
            source = archive.extractfile(member)
            assert source is not None
            partial = target.with_suffix(".part")
            with partial.open("wb") as out:
                for block in iter(lambda: source.read(1 << 20), b""):
                    out.write(block)
    if _sha256(partial) != JAR_SHA256:
        partial.unlink()
        raise SystemExit(f"{JAR_NAME}: sha256 differs from the pinned one")
    partial.replace(target)
    return target


def main() -> int:
    path = install()
    print(f"[setup] Paimon {PAIMON_VERSION} Java library: {path} ({path.stat().st_size // 1_000_000} MB)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
