# Shared by scripts/lab and scripts/test: make sure Java 17 and the project's virtualenv exist.
# Sourced, not executed. Installs only from the project's own files (pyproject.toml).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXPLORER_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

ensure_java() {
  if command -v java >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] java not found: installing Debian's openjdk-17-jre-headless" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "[setup] Java 17 is required but 'java' is not on PATH." >&2
    echo "        On Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless" >&2
    echo "        Elsewhere: install any Java 17 runtime and put 'java' on PATH (or set JAVA_HOME)." >&2
    exit 1
  fi
}

ensure_venv() {
  local extra="$1"
  if [ ! -x "$VENV/bin/python" ]; then
    echo "[setup] creating virtualenv $VENV" >&2
    "$PY" -m venv "$VENV"
  fi
  local stamp="$VENV/.installed-$extra"
  if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
    echo "[setup] installing sequence-explorer[$extra] into $VENV" >&2
    "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
    # setuptools says, boxed, that an editable install may import a same-named folder of the working directory
    # instead: true of every editable install, nothing a newcomer can act on, so that one message (matched by
    # its text, nothing else) is filtered; pip's errors and every other warning still show.
    PYTHONWARNINGS="ignore:Editable installation${PYTHONWARNINGS:+,$PYTHONWARNINGS}" \
      "$VENV/bin/python" -m pip install -q -e "$ROOT[$extra]"
    touch "$stamp"
  fi
  link_voila_template
}

link_voila_template() {
  # The project's voila template and the voila.json that picks it, in the venv's own Jupyter dirs, so that
  # `voila notebooks/playground.ipynb` started by hand serves it too (no page asks a CDN for anything). An
  # editable install does not copy pyproject's data-files (a regular `pip install .` does): linked here, they
  # follow the working tree.
  local templates="$VENV/share/jupyter/voila/templates" etc="$VENV/etc/jupyter"
  mkdir -p "$templates" "$etc"
  [ -e "$templates/explorer" ] || ln -s "$ROOT/explorer/ui/jupyter_data/voila/templates/explorer" "$templates/explorer"
  [ -e "$etc/voila.json" ] || ln -s "$ROOT/explorer/ui/jupyter_config/voila.json" "$etc/voila.json"
}

ensure_output_filter() {
  # .gitattributes sends notebooks/*.ipynb through the "nbstripout" filter: what JupyterLab autosaves while a
  # chapter runs (outputs, execution counts, widget state) never shows in `git diff`, is never committed and never
  # makes a `git pull` conflict mid-workshop. A filter is defined in git's config, not in the repository: this
  # defines it for this clone (idempotent: the same values every time). Outside a git checkout it does nothing.
  git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || return 0
  # --keep-id and language_info's name kept: the committed notebooks are already what this leaves (the notebook
  # tests check it); the kernel's other language_info keys (its version, lexer...) go, as outputs do.
  local info="metadata.language_info" keys=""
  for key in codemirror_mode file_extension mimetype nbconvert_exporter pygments_lexer version; do
    keys="$keys $info.$key"
  done
  local strip="'$VENV/bin/python' -m nbstripout --keep-id --extra-keys '${keys# }'"
  git -C "$ROOT" config filter.nbstripout.clean "$strip"
  git -C "$ROOT" config filter.nbstripout.smudge cat
  git -C "$ROOT" config diff.ipynb.textconv "$strip -t"
}

ensure_browser() {
  # The browser tests (pytest -m browser) drive Debian's chromium through Playwright; nothing is downloaded
  # by Playwright itself. Without chromium those tests skip with a reason, so a failure here only warns.
  if command -v chromium >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] chromium not found: installing Debian's chromium for the browser tests" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
      echo "[setup] could not install chromium; the browser tests will be skipped" >&2
    fi
  else
    echo "[setup] chromium is not installed and this is not root with apt-get: the browser tests will skip." >&2
    echo "        On Debian/Ubuntu: sudo apt-get install chromium" >&2
  fi
}

ensure_class_archive() {
  # Java's class data sharing archive of the classes a first run loads (explorer/iceberg/spark/class_archive.py):
  # prepared once (~40 s), it makes every later Spark start ~30% faster. Optional: a failure only warns.
  "$VENV/bin/python" -m explorer.iceberg.spark.class_archive >&2 || \
    echo "[setup] continuing without the class archive (Spark starts more slowly)" >&2
}

ensure_paimon_jar() {
  # Apache Paimon 0.9.0's Java library (the Paimon Java runner, explorer/paimon/java_runner.py): pip downloads
  # PyPI's pypaimon==0.2.0 source distribution (sha256 pinned) and only its jar goes into the explorer's cache.
  # Nothing downloads at run time; without the jar, scenarios that need it say how to install it.
  "$VENV/bin/python" -m explorer.paimon.java_jar || \
    echo "[setup] could not install Paimon's Java library; Paimon scenarios that need it will say so" >&2
}
