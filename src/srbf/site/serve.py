"""``srbf site serve``: the built folder over HTTP on localhost, for looking at it before publishing
(the folder also works opened straight from disk)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

from srbf.core import SrbfError


class SiteError(SrbfError, ValueError):
    """The folder is not a built site, or the port cannot be had."""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


def make_server(folder: str | Path, port: int = 8000, host: str = "127.0.0.1") -> http.server.ThreadingHTTPServer:
    """A server for ``folder`` bound to ``host:port`` (port 0: any free port); not yet serving."""
    folder = Path(folder)
    if not (folder / "index.html").is_file() or not (folder / "data" / "manifest.js").is_file():
        raise SiteError(f"{folder} is not a built site (no index.html and data/manifest.js): "
                        "run `srbf site build -o DIR` first")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    try:
        return http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as error:
        raise SiteError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None


def serve(folder: str | Path, port: int = 8000, host: str = "127.0.0.1", announce=print) -> None:
    """Serve ``folder`` until interrupted."""
    server = make_server(folder, port, host)
    announce(f"serving {folder} at http://{host}:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
