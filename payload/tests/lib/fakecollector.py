#!/usr/bin/env python3
# fakecollector.py: an HTTP endpoint that answers every upload with one
# fixed status (the durability tests: 413, 500, ...), logging each.
# Usage: fakecollector.py ADDR PORT STATUS LOG
import http.server
import sys

ADDR, PORT, STATUS, LOG = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4]


class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        with open(LOG, "a") as f:
            f.write(f"{self.command} {self.path} -> {STATUS}\n")
        body = f"status {STATUS} from the fake collector\n".encode()
        self.send_response(STATUS)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_POST = do_GET = answer

    def log_message(self, *a):
        pass


http.server.HTTPServer((ADDR, PORT), H).serve_forever()
