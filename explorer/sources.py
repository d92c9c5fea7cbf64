"""Where a scenario enters: a preset name, a ``.yaml`` file, YAML text, a mapping or a Scenario, made into a
scenario its engine accepts, validated once here.

Every way in is the structural parse (``explorer.scenario``) followed by the engine's own checks
(``explorer.engine.validate``); ``explorer.run``, ``explorer.orders``, the changelog entry points, ``explorer
validate`` and the app all take their scenario from here, and the engines run what they are given without
checking it again. Format-neutral: engines are reached only through the registry, so validating starts no JVM.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from explorer.engine import validate
from explorer.settings import resolve_safe
from explorer.scenario import model
from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import DEFAULT_LIMITS, check_yaml_size
from explorer.scenario.model import Scenario

Source = Scenario | Mapping[str, Any] | str | Path
"""What the entry points accept as a scenario: a Scenario, a mapping, a preset name, a .yaml path or YAML text."""

PRESETS_DIR = Path(__file__).parent / "presets"


def parse_scenario(data: Any, *, safe: bool | None = None) -> Scenario:
    """A mapping → a scenario its engine accepts (the structural parse, then the engine's own checks).

    ``safe`` (default: ``EXPLORER_SAFE``, or on in a voila kernel) adds safe mode's limits."""
    return validate(model.parse_scenario(data), safe=safe)


def scenario_from_yaml(text: str, *, safe: bool | None = None) -> Scenario:
    """YAML text → a scenario its engine accepts (in safe mode, text over the size limit is refused unread)."""
    if resolve_safe(safe) and isinstance(text, str):
        check_yaml_size(text)
    return validate(model.scenario_from_yaml(text), safe=safe)


def load_scenario(source: str | Path, *, safe: bool | None = None) -> Scenario:
    """A ``.yaml`` path (or YAML text) → a scenario its engine accepts. In safe mode a file gets the same size
    limit as pasted text, before it is parsed (and no more of it is read than the limit needs)."""
    if resolve_safe(safe) and (isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                                            and source.endswith((".yaml", ".yml")))):
        return scenario_from_yaml(_read_limited(Path(source)), safe=safe)
    return validate(model.load_scenario(source), safe=safe)


def _read_limited(path: Path) -> str:
    """The text of a scenario file, refused unparsed when it is longer than safe mode's YAML limit (at most
    four bytes per character: a file needs at most that many bytes read to know)."""
    limit = DEFAULT_LIMITS.yaml_chars
    try:
        with path.open("rb") as f:
            head = f.read(4 * limit + 4)
            size = path.stat().st_size
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario file {path}: {exc.strerror or exc}") from None
    text = head.decode("utf-8", errors="ignore")  # a character cut at the end of `head` is dropped, not refused
    if len(text) > limit:
        raise ScenarioError(f"the scenario file {path.name} is {size:,} bytes; safe mode accepts at most "
                            f"{limit:,} characters of YAML", field="yaml")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"the scenario file {path.name} is not UTF-8 text (byte {exc.start})") from None


def preset_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted(PRESETS_DIR.glob("*.yaml"))}


def list_presets(engine: str | None = None) -> list[Scenario]:
    """Every built-in scenario (optionally only one engine's), in name order."""
    scenarios = [load_scenario(p) for p in preset_paths().values()]
    return [s for s in scenarios if engine is None or s.engine == engine]


def load_preset(name: str) -> Scenario:
    paths = preset_paths()
    if name not in paths:
        raise ScenarioError(f"no preset named {name!r}. Presets: {', '.join(paths)}", field="preset")
    return load_scenario(paths[name])


def to_scenario(source: Source, *, safe: bool | None = None) -> Scenario:
    """Accept a Scenario, a mapping, a preset name, a path to a YAML file, or YAML text."""
    if isinstance(source, Scenario):
        return validate(source, safe=safe)
    if isinstance(source, Mapping):
        return parse_scenario(source, safe=safe)
    if isinstance(source, Path):
        return load_scenario(source, safe=safe)
    if isinstance(source, str):
        text = source.strip()
        if text in preset_paths():
            return load_preset(text)
        if "\n" in text or text.startswith("{"):
            return scenario_from_yaml(text, safe=safe)
        if text.endswith((".yaml", ".yml")):
            return load_scenario(text, safe=safe)
        raise ScenarioError(f"{text!r} is neither a preset name nor a .yaml file. Presets: "
                            f"{', '.join(preset_paths())}", field="scenario")
    raise ScenarioError(f"cannot make a scenario from a {type(source).__name__}", field="scenario")
