"""The ``explorer`` command line.

Exit codes: 0 ok; 2 invalid input (nothing ran); 3 the resolver/model and the engine disagree; 4 the engine
refused a step (the table stays at its last good snapshot); 5 (``orders``) a history breaks the scenario's
``expect``; 1 an unexpected internal error.
Errors are one readable message on stderr, never a stack trace (set EXPLORER_DEBUG=1 to see one).

Why one module over 400 lines: the parser and every subcommand sit side by side (a subcommand is one parser block
and one short ``_cmd_*`` function calling ``explorer.api``), so the whole command line reads in one place.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Sequence

from explorer.engine import engine_names

if TYPE_CHECKING:
    from explorer.compare_formats import Comparison
    from explorer.engine import At
    from explorer.scenario.race_orders import OrdersResult

EXIT_OK, EXIT_INTERNAL, EXIT_INVALID, EXIT_DISAGREE, EXIT_ENGINE, EXIT_EXPECT = 0, 1, 2, 3, 4, 5


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints usage + exits 2; keep 2, make it readable
        self.print_usage(sys.stderr)
        print(f"explorer: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="explorer", description="See how lakehouse tables order events: run sequence-number "
                     "scenarios on real local Spark + Iceberg (or Paimon) tables and explain every decision.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    spark_opts = _Parser(add_help=False)
    spark_opts.add_argument("--master", default=None, metavar="URL",
                            help="Spark master (default: EXPLORER_SPARK_MASTER, else local[2]), e.g. spark://host:7077")
    spark_opts.add_argument("--conf", action="append", default=[], metavar="K=V",
                            help="a Spark setting, repeatable; defines catalogs too: "
                                 "--conf spark.sql.catalog.prod=org.apache.iceberg.spark.SparkCatalog")

    p_run = sub.add_parser("run", help="run a scenario file or a preset on its real engine", parents=[spark_opts])
    p_run.add_argument("scenario", nargs="?", help="path to a scenario YAML file (or a preset name)")
    p_run.add_argument("--preset", help="name of a built-in scenario (see `explorer presets`)")
    p_run.add_argument("--json", action="store_true", help="print the result as JSON (stable contract)")
    p_run.add_argument("--at-seq", type=int, default=None, metavar="N",
                       help="show the table as of sequence number N (Paimon: snapshot id N); default latest")
    p_run.add_argument("--at-snapshot", type=int, default=None, metavar="ID",
                       help="show the table at snapshot ID (v1 snapshots all have sequence number 0)")
    p_run.add_argument("--ref", default=None, metavar="NAME",
                       help="Iceberg: show the table at the head of branch or tag NAME (default main)")
    p_run.add_argument("--keep-warehouse", action="store_true",
                       help="keep the run's table after exit; its folder is printed (and in --json: warehouse)")
    p_run.add_argument("--warehouse", metavar="DIR", default=None,
                       help="write the run's table into DIR (created if missing) and keep it there")

    at_opts = _Parser(add_help=False)
    at = at_opts.add_mutually_exclusive_group()
    at.add_argument("--at-snapshot", type=int, default=None, metavar="ID", help="view the table at this snapshot")
    at.add_argument("--at-seq", type=int, default=None, metavar="N",
                    help="view the latest snapshot at or before sequence number N")
    at.add_argument("--ref", default=None, metavar="NAME", help="view the head of this branch or tag")

    p_inspect = sub.add_parser("inspect", parents=[spark_opts, at_opts],
                               help="explain an existing Iceberg table's delete decisions (read-only)")
    p_inspect.add_argument("table", help="CATALOG.NAMESPACE.TABLE, as your Spark session knows it")
    p_inspect.add_argument("--json", action="store_true", help="print the result as JSON")
    p_inspect.add_argument("--metadata-only", action="store_true",
                           help="read manifests only, no data or delete rows (big tables)")
    p_inspect.add_argument("--distributed", action=argparse.BooleanOptionalAction, default=None,
                           help="plan with Spark jobs on the session's executors (manifests read there; only the "
                                "summary and per-partition loads come back); default: above "
                                "EXPLORER_DISTRIBUTED_ABOVE live data files. Progress goes to stderr")

    p_why = sub.add_parser("why", parents=[spark_opts, at_opts],
                           help="why is this row (not) in an Iceberg table: every copy and the delete that removed it")
    p_why.add_argument("table", help="CATALOG.NAMESPACE.TABLE")
    p_why.add_argument("--where", action="append", required=True, metavar="COLUMN=VALUE",
                       help="the row to explain, repeatable (all must match), e.g. --where user_id=500")
    p_why.add_argument("--json", action="store_true")
    p_why.add_argument("--distributed", action=argparse.BooleanOptionalAction, default=None,
                       help="have Iceberg plan the where clause (its manifest reader prunes by partition values "
                            "and column bounds; on the executors on a cluster in Iceberg's distributed planning "
                            "mode), then read only those data files and the delete files that can touch them; "
                            "default: above "
                            "EXPLORER_DISTRIBUTED_ABOVE live data files. Progress goes to stderr")

    p_changelog = sub.add_parser("changelog", help="run an Iceberg scenario and read its changelog",
                                 parents=[spark_opts])
    p_changelog.add_argument("scenario", nargs="?", help="path to a scenario YAML file (or a preset name)")
    p_changelog.add_argument("--preset", help="name of a built-in scenario")
    p_changelog.add_argument("--view", default="raw", choices=["raw", "carryover-removed", "net", "updates"],
                             help="raw = the changes table (carry-overs kept); carryover-removed = "
                                  "create_changelog_view; net = net_changes; updates = compute_updates")
    p_changelog.add_argument("--identifier-columns", metavar="A,B", default=None,
                             help="--view updates: pair a DELETE and an INSERT on these columns (default: the "
                                  "table's identifier fields, else the scenario's MERGE/upsert key)")
    p_changelog.add_argument("--json", action="store_true")

    p_compare = sub.add_parser("compare", parents=[spark_opts],
                               help="two Iceberg histories side by side: states, changelogs, files")
    p_compare.add_argument("a", help="scenario A: a YAML file or a preset name")
    p_compare.add_argument("b", help="scenario B: a YAML file or a preset name")
    p_compare.add_argument("--json", action="store_true")

    p_orders = sub.add_parser("orders", parents=[spark_opts],
                              help="run a scenario's race in every commit order on the real engine, judged")
    p_orders.add_argument("scenario", nargs="?", help="path to a scenario YAML file (or a preset name)")
    p_orders.add_argument("--preset", help="name of a built-in scenario (see `explorer presets`)")
    p_orders.add_argument("--json", action="store_true", help="print the histories as JSON (stable contract)")
    p_orders.add_argument("--formats", action="store_true",
                          help="the same race on every format (Iceberg merge-on-read and copy-on-write, Delta, "
                               "DuckLake, Paimon): a grid of history x format")
    p_orders.add_argument("--html", metavar="FILE", default=None,
                          help="also write the grid as one self-contained HTML page that works offline")

    p_export = sub.add_parser("export", parents=[spark_opts],
                              help="write a run as one self-contained HTML page that works offline")
    p_export.add_argument("source", help="a preset name, a scenario YAML file, a kept table's folder "
                                         "(explorer run --warehouse / --keep-warehouse) or CATALOG.NAMESPACE.TABLE")
    p_export.add_argument("--output", "-o", required=True, metavar="FILE", help="the HTML file to write")
    p_export.add_argument("--predict", action="store_true",
                          help="the page opens in predict mode: the answer stays hidden until Reveal")
    p_export.add_argument("--compare", metavar="B", default=None,
                          help="export the changelog comparison of SOURCE (history A) and B instead of one run")
    p_export.add_argument("--orders", action="store_true",
                          help="export SOURCE's race run in every commit order (the grid of explorer orders)")
    p_export.add_argument("--formats", action="store_true",
                          help="export SOURCE's history run on every format (the view of explorer compare-formats)")

    p_presets = sub.add_parser("presets", help="list the built-in scenarios")
    p_presets.add_argument("--json", action="store_true")
    p_presets.add_argument("--engine", choices=engine_names(), default=None)

    p_validate = sub.add_parser("validate", help="check a scenario file without running it")
    p_validate.add_argument("scenario", help="path to a scenario YAML file (or a preset name)")
    p_validate.add_argument("--json", action="store_true")

    p_formats = sub.add_parser("compare-formats", help="run one scenario's history on every format the explorer "
                               "executes (Iceberg merge-on-read and copy-on-write, Paimon, Delta, ...) side by side")
    p_formats.add_argument("scenario", help="a scenario file or preset name, e.g. seed-delete-insert-delete")
    p_formats.add_argument("--engine", action="append", default=None, metavar="NAME",
                           help="only this engine (repeatable); default: every engine that can run the history")
    p_formats.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p_formats.add_argument("--markdown", action="store_true", help="print only the comparison table (Markdown)")

    p_readers = sub.add_parser("readers", parents=[spark_opts],
                               help="run a scenario and read its table with every reader of its format (DuckDB, "
                                    "pyiceberg, polars, daft, ...) at every snapshot; exit 3 when one differs")
    p_readers.add_argument("scenario", help="a scenario YAML file or a preset name, as for `explorer run`")
    p_readers.add_argument("--json", action="store_true", help="print the verdicts as JSON (stable contract)")
    p_readers.add_argument("--warehouse", metavar="DIR", default=None,
                           help="write the run's table into DIR and keep it there (else a temporary folder)")
    p_readers.add_argument("--kit", metavar="DIR", default=None,
                           help="write a conformance kit into DIR: the table and expected.json (the reference rows "
                                "at every snapshot and the rule each delete decision followed)")
    p_readers.add_argument("--reader", action="append", default=None, metavar="NAME",
                           help="only this reader (repeatable; the reference is always read)")
    p_readers.add_argument("--read-seconds", type=float, default=None, metavar="S",
                           help="time limit of one read (default 60); a reader that hangs past it is a verdict")

    p_conf = sub.add_parser("conformance", parents=[spark_opts],
                            help="every preset through every reader of its format: a matrix of verdict counts")
    p_conf.add_argument("--json", action="store_true", help="print the matrix as JSON")
    p_conf.add_argument("--output", "-o", metavar="FILE", default=None,
                        help="also write the report as one self-contained HTML page (works offline)")
    p_conf.add_argument("--preset", action="append", default=None, metavar="NAME",
                        help="only this preset (repeatable); default: every preset")

    p_show = sub.add_parser("show", help="print a preset's YAML (a starting point for your own scenario)")
    p_show.add_argument("preset", help="a preset name (or a scenario file, printed as the explorer reads it)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("explorer: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's promise: a message, never a trace
        return _report_error(exc, as_json=getattr(args, "json", False))


def _at(args: argparse.Namespace) -> At:
    """The snapshot --at-seq / --at-snapshot / --ref select (argparse lets at most one through)."""
    from explorer.engine import At

    return At(sequence_number=args.at_seq, snapshot_id=args.at_snapshot, ref=args.ref)


def _dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "master", None) or getattr(args, "conf", None):
        from explorer.jvm.session import configure

        configure(master=args.master, conf=args.conf)
    if args.command == "inspect":
        from explorer.iceberg.tools import inspect

        distributed = args.distributed
        result = inspect(args.table, at=_at(args),
                         contents=False if args.metadata_only or distributed else None,
                         distributed=distributed, progress=_planning_progress)
        _emit(result, args.json)
        return EXIT_OK if result.agrees else EXIT_DISAGREE
    if args.command == "why":
        from explorer.iceberg.tools import explain_row
        from explorer.scenario.errors import ScenarioError

        where = {}
        for item in args.where:
            column, sep, value = item.partition("=")
            if not sep or not column.strip():
                raise ScenarioError(f"write --where COLUMN=VALUE, not {item!r}", field="where")
            where[column.strip()] = value.strip()
        explanation = explain_row(args.table, where, at=_at(args), distributed=args.distributed,
                                  progress=_planning_progress)
        _emit(explanation, args.json)
        return EXIT_OK if explanation.agrees is not False else EXIT_DISAGREE
    if args.command == "export":
        return _cmd_export(args)
    if args.command == "presets":
        return _cmd_presets(args)
    if args.command == "validate":
        return _cmd_validate(args)
    if args.command == "show":
        sys.stdout.write(_resolve(args.preset).to_yaml())
        return EXIT_OK
    if args.command == "run":
        return _cmd_run(args)
    if args.command == "readers":
        return _cmd_readers(args)
    if args.command == "conformance":
        return _cmd_conformance(args)
    if args.command == "orders":
        return _cmd_orders(args)
    if args.command == "changelog":
        from explorer.iceberg.changelog_api import changelog

        idents = _column_list(args.identifier_columns, args.view)
        changes = changelog(_scenario_from_args(args, "reading"), view=args.view, identifier_columns=idents)
        return _emit(changes, args.json)
    if args.command == "compare-formats":
        from explorer.compare_formats import compare_formats

        formats = compare_formats(_resolve(args.scenario, verb="comparing"), engines=args.engine,
                                  progress=lambda message: print(f"[compare-formats] {message}", file=sys.stderr))
        if args.markdown:
            print(formats.to_markdown())
        else:
            _emit(formats, args.json)
        return EXIT_OK if formats.agrees else EXIT_DISAGREE
    if args.command == "compare":
        from explorer.iceberg.changelog_api import compare

        compared = compare(_resolve(args.a), _resolve(args.b))
        return _emit(compared, args.json)
    raise AssertionError(args.command)


def _scenario_from_args(args, verb: str = "running"):
    from explorer.api import load_preset
    from explorer.scenario.errors import ScenarioError

    if bool(args.scenario) == bool(args.preset):
        raise ScenarioError("give either a scenario file or --preset NAME (not both)", field="scenario")
    if args.preset:
        return load_preset(args.preset)
    return _resolve(args.scenario, verb=verb)


def _column_list(text: str | None, view: str) -> list[str] | None:
    from explorer.scenario.errors import ScenarioError

    if text is None:
        return None
    if view != "updates":
        raise ScenarioError("only --view updates pairs rows on identifier columns", field="identifier_columns")
    columns = [c.strip() for c in text.split(",") if c.strip()]
    if not columns:
        raise ScenarioError("name at least one column, e.g. --identifier-columns id,age", field="identifier_columns")
    return columns


def _resolve(text: str, *, verb: str | None = None):
    """A scenario argument: an existing file, else a preset of that name (said on stderr when ``verb``)."""
    import difflib
    from pathlib import Path

    from explorer.api import preset_paths, to_scenario
    from explorer.scenario.errors import ScenarioError

    path = Path(text)
    if path.exists():
        return to_scenario(path)
    presets = preset_paths()
    if text in presets:
        if verb:
            print(f"explorer: no file named {text!r}: {verb} the built-in preset of that name (--preset {text})",
                  file=sys.stderr)
        return to_scenario(text)
    close = difflib.get_close_matches(text, presets, n=1)
    hint = f"; did you mean --preset {close[0]}?" if close else \
        "; for a built-in scenario give --preset NAME (`explorer presets` lists them)"
    raise ScenarioError(f"no such file: {path}{hint}", field="scenario")


def _planning_progress(line: str) -> None:
    """Progress of long work, one line on stderr each step (stdout keeps only the result)."""
    print(f"explorer: {line}", file=sys.stderr, flush=True)


def _emit(result, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.to_plain(), indent=2, default=str))
    else:
        print(result.to_text())
    return EXIT_OK


def _cmd_presets(args) -> int:
    from explorer.api import list_presets

    presets = list_presets(args.engine)
    if args.json:
        print(json.dumps([{"name": s.name, "engine": s.engine, "title": s.display_title,
                           "steps": len(s.steps)} for s in presets], indent=2))
        return EXIT_OK
    width = max((len(s.name) for s in presets), default=4)
    for s in presets:
        print(f"{s.name:<{width}}  {s.engine:<7}  {s.display_title}")
    return EXIT_OK


def _cmd_validate(args) -> int:
    scenario = _resolve(args.scenario, verb="checking")
    if args.json:
        print(json.dumps({"valid": True, "name": scenario.name, "engine": scenario.engine,
                          "steps": len(scenario.steps)}))
    else:
        print(f"{scenario.name}: valid ({scenario.engine}, {len(scenario.steps)} steps)")
    return EXIT_OK


def _cmd_run(args) -> int:
    from explorer.api import run
    from explorer.scenario.errors import ScenarioError

    scenario = _scenario_from_args(args)
    progress = None if args.json else _stderr_progress(len(scenario.steps))
    result = run(scenario, keep_warehouse=args.keep_warehouse, warehouse=args.warehouse, progress=progress)
    chosen = [f"--{n}" for n, v in (("at-seq", args.at_seq), ("at-snapshot", args.at_snapshot),
                                    ("ref", args.ref)) if v is not None]
    if len(chosen) > 1:
        raise ScenarioError(f"choose one of {' / '.join(chosen)}", field=chosen[1].lstrip("-"))
    try:
        at = result.point(_at(args))
    except LookupError as exc:
        raise ScenarioError(str(exc).strip("'\""), field=chosen[0].lstrip("-") if chosen else "at-seq") from None
    plain = result.to_plain(at)
    text = result.to_text(at) if not args.json else ""
    kept = getattr(result, "kept", None)
    if result.warehouse is not None:
        print(f"explorer: {kept.describe()}" if kept is not None else
              f"explorer: kept the warehouse {result.warehouse}", file=sys.stderr)
    plain["warehouse"] = result.warehouse
    plain["kept_table"] = kept.to_plain() if kept is not None else None
    if args.json:
        print(json.dumps(plain, indent=2, default=str))
    else:
        print(text)
    return EXIT_OK if plain.get("agrees", True) else EXIT_DISAGREE


def _cmd_readers(args) -> int:
    """``explorer readers``: exit 0 when every reader agrees or refuses, 3 when one differs."""
    from explorer.conformance.api import readers, write_kit
    from explorer.scenario.errors import ScenarioError

    scenario = _resolve(args.scenario, verb="reading")
    note = (lambda message: print(f"[readers] {message}", file=sys.stderr, flush=True))
    options: dict[str, Any] = {}
    if args.read_seconds is not None:
        if args.read_seconds <= 0:
            raise ScenarioError("give a positive number of seconds", field="read-seconds")
        options["read_seconds"] = args.read_seconds
    if args.kit is not None:
        if args.warehouse is not None or args.reader:
            raise ScenarioError("--kit writes its own table into the kit; drop --warehouse / --reader",
                                field="kit")
        result, expected = write_kit(scenario, args.kit, progress=note)
        print(f"explorer: wrote the conformance kit {args.kit} ({expected.name} and the table)", file=sys.stderr)
    else:
        result = readers(scenario, warehouse=args.warehouse, readers=args.reader, progress=note, **options)
    for r in result.readers:
        if r.missing:
            print(f"explorer: {r.missing}", file=sys.stderr)
    _emit(result, args.json)
    return EXIT_DISAGREE if result.differs else EXIT_OK


def _cmd_conformance(args) -> int:
    from pathlib import Path

    from explorer.conformance.api import conformance
    from explorer.scenario.errors import ScenarioError

    output = Path(args.output) if args.output else None
    if output is not None and (output.is_dir() or not output.parent.is_dir()):
        raise ScenarioError(f"give an HTML file in an existing folder, not {output}", field="output")
    if args.preset:
        from explorer.api import preset_paths

        unknown = [p for p in args.preset if p not in preset_paths()]
        if unknown:
            raise ScenarioError(f"no preset named {unknown[0]!r} (`explorer presets` lists them)", field="preset")
    result = conformance(args.preset, progress=lambda m: print(f"[conformance] {m}", file=sys.stderr, flush=True))
    if output is not None:
        from explorer.ui.conformance_report import write_report

        write_report(result, output)
        print(f"explorer: wrote {output} ({output.stat().st_size / 1e3:.0f} kB)", file=sys.stderr)
    _emit(result, args.json)
    return EXIT_DISAGREE if result.differs else EXIT_OK


def _cmd_orders(args) -> int:
    """Every history of the race: one line per history on stderr as it finishes; exit 3 if the resolver and the
    engine disagree in any history, 5 if a history breaks the scenario's ``expect``."""
    from explorer.api import orders

    def report(number: int, total: int, run: Any, message: str) -> None:
        if run is not None:
            print(f"[{number}/{total}] {run.history.label} ({run.seconds:.1f} s)", file=sys.stderr, flush=True)

    if getattr(args, "formats", False):
        from explorer.race_formats import race_across_formats

        html = _html_target(args)
        across = race_across_formats(_scenario_from_args(args), progress=lambda message: print(
            f"[orders --formats] {message}", file=sys.stderr, flush=True))
        _emit(across, args.json)
        _write_html(across, html, "orders --formats", args)
        return EXIT_EXPECT if across.violations else (EXIT_OK if across.agrees else EXIT_DISAGREE)
    html = _html_target(args)
    result = orders(_scenario_from_args(args), progress=report)
    _emit(result, args.json)
    _write_html(result, html, "orders", args)
    if not result.agrees:
        return EXIT_DISAGREE
    return EXIT_EXPECT if result.violations else EXIT_OK

def _html_target(args) -> Any:
    """``--html FILE`` checked before anything runs (a folder, or a file in no folder, is refused)."""
    from pathlib import Path

    if getattr(args, "html", None) is None:
        return None
    return _page_path(Path(args.html), "html")


def _page_path(output: Any, field: str) -> Any:
    """A page's path, refused before anything runs when it is a folder or its folder does not exist."""
    from explorer.scenario.errors import ScenarioError

    if output.is_dir():
        raise ScenarioError(f"{output} is a folder; give the HTML file to write, e.g. {output / 'page.html'}",
                            field=field)
    if not output.parent.is_dir():
        raise ScenarioError(f"the folder {output.parent} does not exist", field=field)
    return output


def _write_html(view: Any, output: Any, what: str, args) -> None:
    if output is None:
        return
    from explorer.ui.export import write_page

    source = args.scenario or args.preset or ""
    write_page(view, output, source=f"{what} of {source}")
    print(f"explorer: wrote {output} ({output.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def _cmd_export(args) -> int:
    """``explorer export``: run (or read) the source, then write its page; exit 3 when the page shows a
    disagreement (the page is written all the same, with its red banner)."""
    from pathlib import Path

    from explorer.ui.export import write_page
    from explorer.scenario.errors import ScenarioError

    output = _page_path(Path(args.output), "output")
    views = [(flag, what) for flag, what, on in (
        ("--compare", "a comparison", args.compare is not None),
        ("--orders", "the grid of every commit order", getattr(args, "orders", False)),
        ("--formats", "the comparison of every format", getattr(args, "formats", False))) if on]
    if len(views) > 1:
        raise ScenarioError(f"{' and '.join(f for f, _ in views)} cannot be combined: a page shows one view",
                            field=views[1][0].lstrip("-"))
    if views and args.predict:
        raise ScenarioError(f"predict mode is for one run, not for {views[0][1]}", field="predict")
    if args.compare is not None:
        from explorer.iceberg.changelog_api import compare

        result = compare(_resolve(args.source), _resolve(args.compare))
        write_page(result, output, source=f"{args.source} vs {args.compare}")
        print(f"explorer: wrote {output} ({output.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
        return EXIT_OK
    if views:  # --orders or --formats: the page is written even when it shows a disagreement (exit 3)
        view: OrdersResult | Comparison
        if views[0][0] == "--orders":
            from explorer.api import orders

            def report(number: int, total: int, run: Any, message: str) -> None:
                if run is not None:
                    print(f"[{number}/{total}] {run.history.label} ({run.seconds:.1f} s)", file=sys.stderr,
                          flush=True)

            view = orders(_resolve(args.source), progress=report)
        else:
            from explorer.compare_formats import compare_formats

            view = compare_formats(_resolve(args.source, verb="comparing"), progress=lambda message: print(
                f"[compare-formats] {message}", file=sys.stderr, flush=True))
        write_page(view, output, source=f"{views[0][0][2:]} of {args.source}")
        print(f"explorer: wrote {output} ({output.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
        return EXIT_OK if view.agrees else EXIT_DISAGREE
    result, source = _export_source(args.source)
    write_page(result, output, predict=args.predict, source=source)
    print(f"explorer: wrote {output} ({output.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return EXIT_OK if result.agrees else EXIT_DISAGREE


def _export_source(text: str):
    """What ``explorer export`` shows: a scenario run (preset or YAML file), or an existing table read through
    ``explorer inspect`` (a kept table's folder, a warehouse holding one table, or CATALOG.NAMESPACE.TABLE)."""
    import re
    from pathlib import Path

    from explorer.api import preset_paths, run
    from explorer.iceberg.tools import inspect
    from explorer.scenario.errors import ScenarioError

    path = Path(text)
    if path.is_dir():
        tables = [path] if (path / "metadata").is_dir() else sorted(
            p.parent for p in path.glob("*/*/metadata") if p.is_dir())
        if len(tables) != 1:
            found = ", ".join(str(t) for t in tables[:5]) or "none"
            raise ScenarioError(f"{path} is not a kept table's folder (one with metadata/ inside) nor a warehouse "
                                f"holding exactly one table (tables found: {found})", field="source")
        from explorer.iceberg.spark.warehouse import use_warehouse

        table = tables[0]
        spark, catalog = use_warehouse(table.parent.parent)
        name = f"{catalog}.{table.parent.name}.{table.name}"
        return inspect(name, spark=spark), f"the kept table {table}"
    if path.is_file() or text in preset_paths():
        scenario = _resolve(text)
        kind = "preset" if text in preset_paths() and not path.is_file() else "scenario file"
        return run(scenario, progress=_stderr_progress(len(scenario.steps))), f"{kind} {text}"
    if re.fullmatch(r"[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*){2,}", text) and not text.endswith((".yaml", ".yml")):
        return inspect(text), f"the table {text}"
    _resolve(text)  # raises the message naming the closest preset
    raise AssertionError(text)


def _stderr_progress(total: int):
    """One line per step, once the engine has finished it: ``[2/6] Load batch 2 (0.3 s)``."""
    def report(step_index: int | None = None, total_steps: int | None = None, outcome: Any = None,
               message: str | None = None, **_: Any) -> None:
        if outcome is None:  # a step's start; its line comes when it is done
            return
        title = getattr(outcome, "title", None) or message or ""
        made = "" if getattr(outcome, "snapshot_ids", ()) else ", no snapshot"
        print(f"[{step_index or '-'}/{total_steps or total}] {title} ({outcome.seconds:.1f} s{made})",
              file=sys.stderr, flush=True)

    return report


def _report_error(exc: Exception, *, as_json: bool) -> int:
    from explorer import settings
    from explorer.scenario.errors import EngineError, ScenarioError

    if settings.DEBUG.get_or(True):
        import traceback

        traceback.print_exc()
    if isinstance(exc, settings.SettingError):
        code, payload, text = EXIT_INVALID, exc.to_dict(), f"explorer: invalid setting: {exc}"
    elif isinstance(exc, ScenarioError):
        code, payload, text = EXIT_INVALID, exc.to_dict(), f"explorer: invalid scenario: {exc}"
    elif isinstance(exc, EngineError):
        code, payload, text = EXIT_ENGINE, exc.to_dict(), f"explorer: {exc}"
    else:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        code = EXIT_INTERNAL
        payload = {"error": "internal error", "type": type(exc).__name__, "message": first}
        text = (f"explorer: internal error ({type(exc).__name__}): {first}\n"
                "         This is a bug in Sequence Explorer; run again with EXPLORER_DEBUG=1 for details.")
    if as_json:
        print(json.dumps(payload))
    print(text, file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
