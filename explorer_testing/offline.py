"""No page asks the internet for anything: the request recorder and the host check that
``tests/browser/test_offline.py`` and ``tests/browser/test_app_views.py`` (the voila dashboard, over its whole
session) share."""

from __future__ import annotations

import urllib.parse


def record_requests(page) -> list[str]:
    """Every URL ``page`` requests from now on (Playwright's ``request`` event), in order."""
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def foreign(urls: list[str], own: str) -> list[str]:
    """The requests to any host other than ``own``'s (data: and blob: URLs never leave the browser)."""
    host = urllib.parse.urlsplit(own).netloc
    return [u for u in urls if urllib.parse.urlsplit(u).scheme in ("http", "https", "ws", "wss")
            and urllib.parse.urlsplit(u).netloc != host]


# An element with Font Awesome's class: the font family it renders with (voila's own bundle carries the font).
ICON_FONT_JS = """() => { const i = document.createElement('i'); i.className = 'fa fa-play';
    document.body.appendChild(i); const f = getComputedStyle(i).fontFamily; i.remove(); return f; }"""
