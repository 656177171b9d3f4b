#!/usr/bin/env python3
"""Serves one canned reply to every POST, and a one-model /v1/models, on 127.0.0.1:PORT.

    python3 fuzz/findings/serve_reply.py PORT FILE [endless]

FILE is sent as a text/event-stream body. With `endless`, FILE is sent and then an unending
line of 'a' without a line end (the endless-line finding), 1 MiB at a time.
"""
import http.server
import json
import sys

PORT, FILE = int(sys.argv[1]), sys.argv[2]
ENDLESS = len(sys.argv) > 3 and sys.argv[3] == "endless"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "m"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = open(FILE, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if ENDLESS:
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            while True:
                self.wfile.write(b"a" * (1 << 20))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
