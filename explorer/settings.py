"""Every setting the explorer reads from the environment, in one place: its variable, type, default and help.

Modules ask this one (``settings.SAFE.get()``) instead of reading ``os.environ`` themselves. A setting is read
each time it is asked for, so a launcher that sets one for its child process, or a test's ``monkeypatch``, is
seen. A value that does not parse is a :class:`SettingError` naming the variable and what it accepts (the CLI
exits 2 with that one line), never a guess. ``docs/settings.md`` is this module's table
(``python -m explorer.settings`` prints it; tests/pure/test_settings.py checks the two agree, and that no other
module reads an ``EXPLORER_*`` variable itself).

Pure: the standard library and the explorer's error types only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from explorer.scenario.errors import ScenarioError

T = TypeVar("T")

_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")


class SettingError(ScenarioError):
    """An environment variable holds a value its setting does not accept (``field`` is the variable's name)."""

    def to_dict(self) -> dict[str, Any]:
        return {"error": "invalid setting", "step": None, "field": self.field, "message": self.message}


def _switch(text: str) -> bool:
    word = text.strip().lower()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise ValueError(f"expected one of {'/'.join(_ON)} or {'/'.join(_OFF)}")


def _text(text: str) -> str:
    return text.strip()


def _path(text: str) -> Path:
    return Path(text.strip()).expanduser()


def _jvm_size(text: str) -> str:
    size = text.strip()
    if not re.fullmatch(r"[1-9][0-9]*[kKmMgGtT]?", size):
        raise ValueError("expected a JVM memory size such as 768m or 2g")
    return size


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        word = text.strip().lower()
        if word not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return word

    return parse


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable: ``get()`` is its value (``default`` when unset or empty)."""

    name: str
    default: T
    parse: Callable[[str], T]
    accepts: str  # what a value may be, as the docs say it
    help: str

    def raw(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The variable's text, or None when it is unset or blank."""
        text = (os.environ if environ is None else environ).get(self.name)
        return text if text is not None and text.strip() else None

    def get(self, environ: Mapping[str, str] | None = None) -> T:
        text = self.raw(environ)
        if text is None:
            return self.default
        try:
            return self.parse(text)
        except ValueError as exc:
            raise SettingError(f"{text!r} is not a value this setting accepts: {exc}", field=self.name) from None

    def get_or(self, fallback: T) -> T:
        """The value, or ``fallback`` when the variable does not parse: for the few places where raising would hide
        something else (reporting another error, a module being imported)."""
        try:
            return self.get()
        except SettingError:
            return fallback

    @property
    def shown_default(self) -> str:
        if self.default is None:
            return "unset"
        if isinstance(self.default, bool):
            return "1" if self.default else "0"
        return str(self.default) if self.default != "" else "empty"


# ------------------------------------------------------------------------------------------ for everyone

SAFE: Setting[bool | None] = Setting(
    "EXPLORER_SAFE", None, _switch, "1 or 0 (also true/false, yes/no, on/off)",
    "Safe mode for a shared dashboard: scenario size limits, every SQL text checked before it runs, no server "
    "path in a message. Unset: on inside a voila kernel, off elsewhere. `scripts/lab --voila` sets it to 1 "
    "unless it is 0.")
DEBUG: Setting[bool] = Setting(
    "EXPLORER_DEBUG", False, _switch, "1 or 0",
    "Show the Python traceback behind a command-line error, and py4j's own log when the JVM goes away, instead "
    "of one readable line.")
TOKEN: Setting[str | None] = Setting(
    "EXPLORER_TOKEN", None, _text, "text",
    "The JupyterLab token `scripts/lab` starts the server with. Unset: a new random token each start.")

# ------------------------------------------------------------------------------------------ the Spark engine

SPARK_MASTER: Setting[str | None] = Setting(
    "EXPLORER_SPARK_MASTER", None, _text, "a Spark master URL",
    "The master the explorer's session is built with, e.g. spark://host:7077 (the CLI's --master and "
    "`explorer.configure_spark(master=)` win). Unset: local[2].")
SPARK_CONF: Setting[str] = Setting(
    "EXPLORER_SPARK_CONF", "", _text, "key=value items, one per line or separated by ;",
    "Extra Spark settings on top of the explorer's own (the CLI's --conf and `configure_spark(conf=)` are "
    "applied after them); a catalog of your own is defined this way.")
DRIVER_MEMORY: Setting[str] = Setting(
    "EXPLORER_DRIVER_MEMORY", "768m", _jvm_size, "a JVM memory size (768m, 2g)",
    "The driver JVM's heap.")
JVM_OPTIONS: Setting[str] = Setting(
    "EXPLORER_JVM_OPTIONS", "", _text, "JVM options",
    "Options added last to the driver JVM's command line.")
CLASS_ARCHIVE: Setting[bool] = Setting(
    "EXPLORER_CLASS_ARCHIVE", True, _switch, "1 or 0 (also on/off)",
    "Map the class data sharing archive the install scripts prepare (a shorter cold start); 0 turns it off.")
CACHE_DIR: Setting[Path | None] = Setting(
    "EXPLORER_CACHE_DIR", None, _path, "a directory",
    "Where the class archive and Paimon's Java jar are kept. Unset: $XDG_CACHE_HOME/sequence-explorer, or "
    "~/.cache/sequence-explorer.")
ONE_ENGINE: Setting[bool] = Setting(
    "EXPLORER_ONE_ENGINE", False, _switch, "1 or 0",
    "One Spark driver per learner: a kernel that starts Spark stops the explorer JVMs of the learner's other "
    "kernels (binder/start sets it for a 2 GB pod).")
ENGINE_GROUP: Setting[str | None] = Setting(
    "EXPLORER_ENGINE_GROUP", None, _text, "text",
    "The group whose JVMs EXPLORER_ONE_ENGINE stops one another in. Unset: this user (uid-N).")

REHEARSE: Setting[bool | None] = Setting(
    "EXPLORER_REHEARSE", None, _switch, "1 or 0",
    "When a chapter or the app starts Spark in the background, also run a small scenario on it and drop it, so "
    "the first run finds Spark's code loaded (a run started meanwhile stops it at its next step). Unset: on, "
    "except in safe mode (a shared dashboard, where many learners start at once and CPU limits the room).")

def _count(text: str) -> int:
    value = int(text.strip().replace(",", "").replace("_", ""))
    if value < 0:
        raise ValueError("expected a number of files, 0 or more")
    return value


DISTRIBUTED_ABOVE: Setting[int] = Setting(
    "EXPLORER_DISTRIBUTED_ABOVE", 1_000_000, _count, "a number of live data files",
    "`explorer inspect` of a table with more live data files than this, read for its metadata only, is planned "
    "by Spark jobs on the session's executors (the distributed path, docs/inspect.md) instead of in the driver; "
    "`--distributed` / `distributed=True` asks for it at any size, `distributed=False` never. `explorer why` "
    "(`explain_row`) of such a table has Iceberg plan its where clause (on the executors when the session runs on "
    "a cluster and Iceberg's planning mode says so) and reads only the planned files.")

def _seconds(text: str) -> int:
    value = int(text.strip())
    if value < 1:
        raise ValueError("expected a number of seconds, 1 or more")
    return value


DISTRIBUTED_WAIT: Setting[int] = Setting(
    "EXPLORER_DISTRIBUTED_WAIT", 120, _seconds, "seconds",
    "How long a distributed inspect waits while its cluster has no executor (every worker lost, or none ever "
    "registered) before it stops with one line and exit code 4 instead of waiting for ever.")

LARGE_FONT: Setting[bool] = Setting(
    "EXPLORER_LARGE_FONT", False, _switch, "1 or 0",
    "Large-font mode for a projector: the app's text and every figure's fonts 1.4x (`explorer.large_font()` "
    "turns it on or off for one kernel; docs/workshop.md).")

# ------------------------------------------------------------------------------------------ Paimon

PAIMON_RUNNER: Setting[str] = Setting(
    "EXPLORER_PAIMON_RUNNER", "auto", _choice("auto", "java", "pypaimon"), "auto, java or pypaimon",
    "Which Paimon engine runs a scenario (a run's runner= wins): auto takes Paimon's Java library only for what "
    "pypaimon cannot run.")
PAIMON_JAR: Setting[Path | None] = Setting(
    "EXPLORER_PAIMON_JAR", None, _path, "a file",
    "Paimon's Java bridge jar. Unset: paimon/ under the cache directory, where the install scripts put it.")

ALL: tuple[Setting[Any], ...] = (SAFE, DEBUG, TOKEN, SPARK_MASTER, SPARK_CONF, DRIVER_MEMORY, JVM_OPTIONS,
                            CLASS_ARCHIVE, CACHE_DIR, ONE_ENGINE, ENGINE_GROUP, REHEARSE, DISTRIBUTED_ABOVE,
                            DISTRIBUTED_WAIT, LARGE_FONT, PAIMON_RUNNER, PAIMON_JAR)

# Not a setting: class_archive.prepare hands its child the file to dump the archive into.
CLASS_ARCHIVE_DUMP = "_EXPLORER_CLASS_ARCHIVE_DUMP"


VOILA_KERNEL_VARIABLES = ("VOILA_REQUEST_URL", "VOILA_BASE_URL", "VOILA_KERNEL_ID")
"""What voila sets in its kernels' environment: safe mode's default is on where one of them is set."""


def safe_default(environ: Mapping[str, str] | None = None) -> bool:
    """Whether safe mode is on when nobody says: ``EXPLORER_SAFE`` (1/0) if set, else on inside a voila kernel
    (voila gives its kernels ``VOILA_*`` variables), else off (a notebook already runs any code)."""
    flag = SAFE.get(environ)
    if flag is not None:
        return flag
    env = os.environ if environ is None else environ
    return any(key in env for key in VOILA_KERNEL_VARIABLES)


def resolve_safe(safe: bool | None) -> bool:
    """``safe`` as given, else :func:`safe_default`."""
    return safe_default() if safe is None else bool(safe)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The explorer's cache: EXPLORER_CACHE_DIR, else ``$XDG_CACHE_HOME`` or ``~/.cache``, /sequence-explorer."""
    chosen = CACHE_DIR.get(environ)
    if chosen is not None:
        return chosen
    env = os.environ if environ is None else environ
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sequence-explorer"


def table() -> str:
    """The settings as the Markdown table docs/settings.md carries."""
    lines = ["| variable | accepts | default | what it does |", "|---|---|---|---|"]
    lines += [f"| `{s.name}` | {s.accepts} | {s.shown_default} | {s.help} |" for s in ALL]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
