"""Every reader, checked (issue #39): the tables a run kept, read by the other readers people query them with.

``result`` (pure): the typed result. ``diagnosis`` (pure): why a reader's rows differ, from the resolver's
decisions. ``readers``: one protocol and one registry line per reader; each reader in its own module, run in a
child process with a time limit (``child``). ``check``: a run's table through every reader of its format.
"""
