"""Delta Lake through delta-rs: the pure log model (``model``), the capture (``capture``), checks (``validate``,
``safety``), the adapter that runs delta-rs (``runner``), the explained result (``result``) and figures."""
