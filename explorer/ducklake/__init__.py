"""DuckLake through DuckDB's ``ducklake`` extension: a pure model of its catalog (``model``, ``validate``,
``result``), the adapter that runs DuckDB (``runner``, ``connection``, ``safety``) and its figures."""
