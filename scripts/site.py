"""Build the docs site: the guides, the chapters executed on the real engines with their outputs, the scenario
reference and a gallery page per preset with its exported page embedded. Output: a static folder (default
``build/site``) that works from any static host or straight from ``file://``, with nothing fetched.

``bash scripts/site`` runs this with the project's virtualenv (the ``docs`` extra). Steps:

1. Chapters: each notebook is executed once on the real engines with nbclient and kept in the cache folder
   (``build/site-cache``) under a hash of its cells, the package's sources and the presets: a rebuild with
   nothing changed executes nothing. ``--executed DIR`` takes already executed notebooks from DIR instead (the
   test suite's notebook tests leave theirs there, so the site test executes no chapter a second time).
   ``--chapters`` limits which chapters run; the others appear without outputs and say so.
2. Outputs are made static: a plotly figure becomes a ``<div>`` drawn by the one plotly.js of the site
   (``_static/plotly.min.js``, the plotly package's own bundle); a live widget (the app) becomes a note that
   links to the gallery, where the same story is an exported page.
3. Gallery: each preset runs once and is exported (``explorer.ui.export``) into ``_static/gallery/``, sharing
   the site's plotly.js, and kept in the cache under the same hash of the package; ``--pages DIR`` takes pages
   already exported (named ``<preset>.html``) from DIR.
4. Conformance: every preset (or those ``--conformance`` names) through every reader of its format
   (``explorer conformance``), the report written into ``_static/conformance.html`` (self-contained, no script)
   and embedded in one page of the site; kept in the cache under the same hash of the package.
5. Sphinx with MyST-NB renders it all (``site/conf.py``); notebooks are not executed by Sphinx.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
# The reading order (notebook 00 and docs/user-guide.md say the same): the numbered chapters in their numbers'
# order, then the two "any time" notebooks.
ANY_TIME = ("playground", "inspect-your-table")
# The guides in the site's order; any other page of docs/ (one file per topic) follows them.


def chapters() -> tuple[str, ...]:
    """The chapters in reading order: the numbered ones by number, then the "any time" ones, then any other."""
    present = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    numbered = sorted(n for n in present if n[:2].isdigit())
    return (*numbered, *[n for n in ANY_TIME if n in present], *sorted(present - set(numbered) - set(ANY_TIME)))


GUIDES = ("user-guide", "workshop", "inspect", "scenario-reference", "glossary", "internals")


def guides() -> list[str]:
    others = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if p.stem not in (*GUIDES, "index"))
    return [*GUIDES, *others]
# The repository's address lives in one place, pyproject.toml's [project.urls] "Repository" (a GitHub URL). The
# guides write their Binder and Pages links with OWNER/REPO; the build fills those in from it, or, when it is not
# set, leaves the links out (their text stays) instead of publishing dead ones.
_PLACEHOLDER_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]*OWNER[^)\s]*)\)")


def repository() -> tuple[str, str] | None:
    """(owner, name) from pyproject.toml's ``[project.urls] Repository``, or None when it is not set."""
    import tomllib

    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("urls", {})
    found = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", urls.get("Repository", ""))
    return (found.group(1), found.group(2)) if found else None


def with_repository(text: str, repo: tuple[str, str] | None) -> str:
    """A guide's Markdown with its OWNER/REPO links made real, or reduced to their text when ``repo`` is None."""
    if repo is None:
        return _PLACEHOLDER_LINK.sub(r"\1", text)
    owner, name = repo
    return text.replace("https://OWNER.github.io/REPO/", f"https://{owner}.github.io/{name}/").replace(
        "OWNER/REPO", f"{owner}/{name}")


def toctree() -> list[str]:
    """The site's navigation: the chapters first (a reader's path, and "Next" walks it), then the guides and
    the gallery."""
    return ["```{toctree}", ":caption: Chapters", "", *[f"../notebooks/{c}" for c in chapters()], "```", "",
            "```{toctree}", ":caption: Guides", "", *guides(), "```", "",
            "```{toctree}", ":caption: Gallery", "", "../gallery/index", "```", ""]


PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
KERNEL = "sequence-explorer-site"


def log(message: str) -> None:
    print(f"[site] {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------ chapters


def sources_hash() -> str:
    """What an executed chapter depends on besides its own cells: the package's code and presets."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "explorer").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".yaml", ".java", ".js"):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def chapter_key(nb, package: str) -> str:
    cells = [(c.cell_type, c.source) for c in nb.cells]
    return hashlib.sha256(json.dumps([cells, package]).encode()).hexdigest()[:20]


def kernel_dir(scratch: Path) -> Path:
    """A kernelspec that starts ipykernel with this very interpreter (the project's venv)."""
    spec = scratch / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Sequence Explorer (site)", "language": "python"}))
    return scratch


def execute(nb, scratch: Path):
    import os

    from nbclient import NotebookClient

    os.environ["JUPYTER_PATH"] = str(kernel_dir(scratch))
    with tempfile.TemporaryDirectory(prefix="site-run-") as workdir:
        client = NotebookClient(nb, kernel_name=KERNEL, timeout=900, startup_timeout=120,
                                resources={"metadata": {"path": workdir}})
        client.execute()
    return nb


def chapter(name: str, *, run: bool, cache: Path, executed: Path | None, package: str, scratch: Path):
    """The chapter with outputs (from ``executed``, the cache, or a run now), or without when not run."""
    import nbformat

    source = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    given = executed / f"{name}.ipynb" if executed is not None else None
    if given is not None and given.is_file():
        nb = nbformat.read(given, as_version=4)
        if [c.source for c in nb.cells] == [c.source for c in source.cells]:
            log(f"{name}: outputs taken from {given}")
            return nb, "given"
        log(f"{name}: {given} holds other cells; not used")
    cached = cache / f"{name}-{chapter_key(source, package)}.ipynb"
    if cached.is_file():
        log(f"{name}: outputs from the cache")
        return nbformat.read(cached, as_version=4), "cached"
    if not run:
        return source, "not executed"
    log(f"{name}: executing on the real engines…")
    t0 = time.perf_counter()
    nb = execute(source, scratch)
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.glob(f"{name}-*.ipynb"):
        old.unlink()
    nbformat.write(nb, cached)
    log(f"{name}: executed in {time.perf_counter() - t0:.0f} s")
    return nb, "executed"


def gallery_link(cell_source: str) -> str:
    import re

    m = re.search(r"""preset\s*=\s*["']([\w-]+)["']""", cell_source)
    if "compare_explorer" in cell_source:
        return "../gallery/compare-changelog-sequence-a-vs-b.md"
    return f"../gallery/{m.group(1)}.md" if m else "../gallery/index.md"


def make_static(nb, status: str):
    """Outputs a static page can show: plotly figures as divs for the site's plotly.js, widgets as a note."""
    import nbformat

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if PLOTLY_MIME in data:
                # drawn by _static/site-figures.js once plotly.js has loaded (the theme loads scripts last)
                spec = json.dumps(data[PLOTLY_MIME], separators=(",", ":")).replace("</", "<\\/")
                figure = f'<div class="sx-site-figure"><script type="application/json">{spec}</script></div>'
                out = nbformat.from_dict({**out, "data": {"text/html": figure}})
            elif WIDGET_MIME in data:
                link = gallery_link(cell.source)
                note = ("<div class='sx-widget-note'>In Jupyter this cell shows the live app (it needs a kernel). "
                        f"On this site the same story is an exported page: <a href='{html.escape(link[:-3])}.html'>"
                        "open it in the gallery</a>.</div>")
                out = nbformat.from_dict({**out, "data": {"text/html": note}})
            outputs.append(out)
        cell["outputs"] = outputs
    nb.metadata.pop("widgets", None)  # a live widget's saved state: nothing on a static page uses it
    if status == "not executed":
        nb.cells.insert(1, nbformat.v4.new_markdown_cell(
            "```{note}\nThis build did not execute this chapter: its cells are shown without outputs. The full "
            "site (`bash scripts/site`) executes every chapter.\n```"))
    return nb


# ------------------------------------------------------------------------------------------------ gallery


def gallery(names: list[str], pages: Path | None, static: Path, src: Path, with_compare: bool,
            cache: Path, package: str) -> list[str]:
    """Export each preset (or take its page from ``pages``, or from the cache when the package has not changed)
    and write its gallery page; returns page names."""
    from explorer.api import load_preset

    kept = cache / "gallery"
    kept.mkdir(parents=True, exist_ok=True)
    for old in kept.glob("*.html"):
        if not old.name.endswith(f"-{package}.html"):
            old.unlink()
    folder = static / "gallery"
    folder.mkdir(parents=True, exist_ok=True)
    (src / "gallery").mkdir(parents=True, exist_ok=True)
    made = []
    for name in names:
        scenario = load_preset(name)
        target = folder / f"{name}.html"
        given = pages / f"{name}.html" if pages is not None else None
        cached = kept / f"{name}-{package}.html"
        if given is not None and given.is_file():
            shutil.copyfile(given, target)
        elif cached.is_file():
            shutil.copyfile(cached, target)
        else:
            import explorer
            from explorer.ui.export import write_page

            t0 = time.perf_counter()
            write_page(explorer.run(scenario), target, plotly_src="../plotly.min.js", source=f"preset {name}")
            shutil.copyfile(target, cached)
            log(f"gallery: {name} run and exported in {time.perf_counter() - t0:.1f} s")
        gallery_page(src / "gallery" / f"{name}.md", name, scenario.display_title, scenario.engine)
        made.append(name)
    if with_compare:
        name = "compare-changelog-sequence-a-vs-b"
        target = folder / f"{name}.html"
        given = pages / f"{name}.html" if pages is not None else None
        cached = kept / f"{name}-{package}.html"
        if given is not None and given.is_file():
            shutil.copyfile(given, target)
        elif cached.is_file():
            shutil.copyfile(cached, target)
        else:
            from explorer.iceberg.changelog_api import compare
            from explorer.ui.export import write_page

            write_page(compare("changelog-sequence-a", "changelog-sequence-b"), target,
                       plotly_src="../plotly.min.js", source="changelog-sequence-a vs changelog-sequence-b")
            shutil.copyfile(target, cached)
        gallery_page(src / "gallery" / f"{name}.md", name, "Changelogs of two equal histories compared", "iceberg")
        made.append(name)
    intro = ("Every preset, run on the real engine when this site was built and exported as one page "
             "(`explorer export`): drag the slider, press ▶ Play, open the tabs. Nothing here needs a kernel.")
    cards = "\n".join(gallery_card(name) for name in made)
    lines = ["# Gallery", "", intro, "", "```{raw} html", f'<div class="sx-gallery-cards">\n{cards}\n</div>', "```"]
    lines += ["", "```{toctree}", ":hidden:", "", *made, "```", ""]
    (src / "gallery" / "index.md").write_text("\n".join(lines), encoding="utf-8")
    return made


# A thumbnail's colour per step kind (the class name's words), so a story's shape reads at a glance.
STEP_COLOURS = (("Concurrent", "#ef6c00"), ("Delete", "#c62828"), ("Update", "#f9a825"), ("Merge", "#f9a825"),
                ("Insert", "#2e7d32"), ("Append", "#2e7d32"), ("Compact", "#546e7a"), ("Rewrite", "#546e7a"))


def thumbnail(steps: list[str]) -> str:
    """A small SVG of a story: one block per step, coloured by its kind, numbered."""
    width = max(1, len(steps)) * 26 + 8
    blocks = []
    for i, kind in enumerate(steps):
        colour = next((c for word, c in STEP_COLOURS if word in kind), "#78909c")
        blocks.append(f'<rect x="{6 + i * 26}" y="8" width="22" height="22" rx="3" fill="{colour}">'
                      f"<title>{html.escape(kind)}</title></rect>"
                      f'<text x="{17 + i * 26}" y="44" font-size="10" text-anchor="middle" fill="#455a64">{i + 1}</text>')
    return (f'<svg class="sx-thumb" viewBox="0 0 {width} 50" width="{width}" height="50" role="img" '
            f'aria-label="{len(steps)} steps">{"".join(blocks)}</svg>')


def gallery_card(name: str) -> str:
    """One gallery entry: the story's thumbnail, its title and name, linked to its page."""
    from explorer.api import load_preset

    try:
        scenario = load_preset(name)
        title, engine = scenario.display_title, scenario.engine
        steps = [type(step).__name__.removesuffix("Step") for step in scenario.steps]
    except Exception:  # the comparison page is no preset
        title, engine, steps = "Changelogs of two equal histories compared", "iceberg", []
    return (f'<a class="sx-card" href="{name}.html">{thumbnail(steps) if steps else ""}'
            f'<span class="sx-card-title">{html.escape(title)}</span>'
            f'<span class="sx-card-name">{html.escape(name)} · {html.escape(engine)}</span></a>')


def gallery_page(path: Path, name: str, title: str, engine: str) -> None:
    path.write_text(f"""# {title}

`{name}` ({engine}); the page below is the exported run. Run it yourself:
`explorer export {name} --output {name}.html`, or `explore(preset="{name}")` in a notebook.

```{{raw}} html
<p><a href="../_static/gallery/{name}.html">Open the page alone</a></p>
<iframe class="sx-gallery-frame" src="../_static/gallery/{name}.html" title="{html.escape(title)}"
        style="width:100%;height:85vh;min-height:600px;border:1px solid #cfd8dc;border-radius:4px" loading="lazy"></iframe>
```
""", encoding="utf-8")


# ------------------------------------------------------------------------------------------------ conformance


def conformance_report(names: list[str], static: Path, src: Path, cache: Path, package: str) -> str | None:
    """Every preset in ``names`` through every reader of its format, as ``_static/conformance.html`` and the
    page ``conformance/index.md`` that embeds it; returns that page (None when no preset is named)."""
    if not names:
        return None
    kept = cache / "conformance"
    kept.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256((package + "\n" + ",".join(names)).encode()).hexdigest()[:16]
    cached = kept / f"conformance-{key}.html"
    for old in kept.glob("conformance-*.html"):
        if old != cached:
            old.unlink()
    target = static / "conformance.html"
    if cached.is_file():
        shutil.copyfile(cached, target)
    else:
        from explorer.conformance.api import conformance
        from explorer.ui.conformance_report import write_report

        t0 = time.perf_counter()
        write_report(conformance(names, progress=lambda m: log(f"conformance: {m}")), target)
        shutil.copyfile(target, cached)
        log(f"conformance: {len(names)} preset(s) through every reader in {time.perf_counter() - t0:.1f} s")
    (src / "conformance").mkdir(parents=True, exist_ok=True)
    (src / "conformance" / "index.md").write_text("""# Conformance report

Every preset below was run on its format's real engine when this site was built, and each snapshot of its table
was read with every reader of that format installed here (`explorer conformance --output report.html` makes the
same page; [the readers guide](../docs/readers.md) says what each verdict means). A cell counts the snapshots
where the reader agrees with the reference, differs from it, refused, or failed.

```{raw} html
<p><a href="../_static/conformance.html">Open the report alone</a></p>
<iframe class="sx-conformance-frame" src="../_static/conformance.html" title="Conformance report"
        style="width:100%;height:1400px;border:1px solid #cfd8dc;border-radius:4px" loading="lazy"></iframe>
```
""", encoding="utf-8")
    return "../conformance/index"


# ------------------------------------------------------------------------------------------------ main


def choose(text: str, every: list[str]) -> list[str]:
    if text == "all":
        return list(every)
    if text == "none":
        return []
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in every]
    if unknown:
        raise SystemExit(f"site: unknown name(s) {', '.join(unknown)}; choose from {', '.join(every)}")
    return names


def build(args) -> Path:
    import nbformat

    from explorer.api import preset_paths
    from explorer.ui.timetravel import plotly_js_source

    t_start = time.perf_counter()
    out, cache = Path(args.out).resolve(), Path(args.cache).resolve()
    src = out.parent / (out.name + "-src")
    shutil.rmtree(src, ignore_errors=True)
    (src / "docs").mkdir(parents=True)
    static = src / "_static"
    static.mkdir()
    (static / "plotly.min.js").write_text(plotly_js_source(), encoding="utf-8")
    for name in ("site-figures.js", "site.css"):
        shutil.copyfile(ROOT / "site" / name, static / name)
    # guides
    repo = repository()
    for name in (*guides(), "index"):
        text = (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")
        (src / "docs" / f"{name}.md").write_text(with_repository(text, repo), encoding="utf-8")
    shutil.copytree(ROOT / "docs" / "img", src / "docs" / "img")
    index = (src / "docs" / "index.md").read_text(encoding="utf-8")
    toc = [line if not line.startswith("```{toctree}") else line + "\n:hidden:" for line in toctree()]
    if args.conformance != "none":
        toc += ["```{toctree}", ":hidden:", ":caption: Readers", "", "../conformance/index", "```", ""]
    (src / "docs" / "index.md").write_text(index + "\n" + "\n".join(toc), encoding="utf-8")
    # chapters
    (src / "notebooks").mkdir()
    run = choose(args.chapters, list(chapters()))
    package = sources_hash()
    executed = Path(args.executed).resolve() if args.executed else None
    statuses = {}
    with tempfile.TemporaryDirectory(prefix="site-kernel-") as scratch:
        for name in chapters():
            nb, statuses[name] = chapter(name, run=name in run, cache=cache, executed=executed, package=package,
                                         scratch=Path(scratch))
            nbformat.write(make_static(nb, statuses[name]), src / "notebooks" / f"{name}.ipynb")
    t_chapters = time.perf_counter() - t_start
    # gallery
    presets = choose(args.gallery, list(preset_paths()))
    made = gallery(presets, Path(args.pages).resolve() if args.pages else None, static, src,
                   with_compare=args.gallery == "all" or args.compare, cache=cache, package=package)
    t_gallery = time.perf_counter() - t_start - t_chapters
    # conformance
    t0 = time.perf_counter()
    report = conformance_report(choose(args.conformance, list(preset_paths())), static, src, cache, package)
    t_conformance = time.perf_counter() - t0
    # sphinx
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    shutil.copyfile(ROOT / "site" / "conf.py", src / "conf.py")  # its paths (_static) are the staged folder's
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"site: sphinx failed (exit {done.returncode})")
    (out / "index.html").write_text('<!DOCTYPE html><meta charset="utf-8"><title>Sequence Explorer</title>'
                                    '<meta http-equiv="refresh" content="0; url=docs/index.html">'
                                    '<a href="docs/index.html">Sequence Explorer documentation</a>\n')
    t_sphinx = time.perf_counter() - t0
    summary = {"chapters": statuses, "gallery": made, "conformance": report, "warnings": warnings,
               "seconds": {"chapters": round(t_chapters, 1), "gallery": round(t_gallery, 1),
                           "conformance": round(t_conformance, 1),
                           "sphinx": round(t_sphinx, 1), "total": round(time.perf_counter() - t_start, 1)}}
    (out / "build.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    for w in warnings[:20]:
        log(w)
    log(f"built {out} in {summary['seconds']['total']} s ({len(made)} gallery pages; chapters: "
        f"{sum(s in ('executed', 'cached', 'given') for s in statuses.values())} of {len(statuses)} with outputs; "
        f"{len(warnings)} Sphinx warnings). Open {out / 'index.html'}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/site", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "site"), help="the static folder (default build/site)")
    parser.add_argument("--cache", default=str(ROOT / "build" / "site-cache"),
                        help="executed chapters, kept between builds (default build/site-cache)")
    parser.add_argument("--chapters", default="all", help="chapters to execute: all, none or NAME,NAME")
    parser.add_argument("--executed", default=None, metavar="DIR", help="take executed notebooks from DIR")
    parser.add_argument("--gallery", default="all", help="presets to export: all, none or NAME,NAME")
    parser.add_argument("--compare", action="store_true", help="add the changelog comparison page to a partial gallery")
    parser.add_argument("--conformance", default="all",
                        help="presets in the conformance report page: all, none or NAME,NAME")
    parser.add_argument("--pages", default=None, metavar="DIR", help="take exported pages (<preset>.html) from DIR")
    build(parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
