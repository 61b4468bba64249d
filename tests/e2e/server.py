"""Local HTTP server for the e2e pages: serves tests/e2e/pages/ and records what forms post to /post."""

from __future__ import annotations

import threading
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGES = Path(__file__).parent / "pages"


class PageServer:
    """`posts` holds each body posted to /post as a dict of form fields (first value of each)."""

    def __init__(self) -> None:
        self.posts: list[dict[str, str]] = []
        self.posted = threading.Condition()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(PAGES.parent), **kwargs)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode("utf-8")
                fields = {k: v[0] for k, v in urllib.parse.parse_qs(body, keep_blank_values=True).items()}
                with server.posted:
                    server.posts.append(fields)
                    server.posted.notify_all()
                reply = b"<!doctype html><title>posted</title><p id=posted>posted</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep pytest output clean

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, page: str) -> str:
        return f"{self.base}/pages/{page}"

    def start(self) -> PageServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def clear(self) -> None:
        with self.posted:
            self.posts.clear()
