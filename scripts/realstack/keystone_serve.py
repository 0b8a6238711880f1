"""Serve Keystone's WSGI application on loopback: python keystone_serve.py PORT.
The configuration comes from OS_KEYSTONE_CONFIG_FILES (keystone's own variable)."""

import socketserver
import sys
from wsgiref import simple_server

from keystone.server import wsgi


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *a):
        pass


class Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


port = int(sys.argv[1])
del sys.argv[1:]  # keystone parses the command line as its own options
app = wsgi.initialize_public_application()
simple_server.make_server("127.0.0.1", port, app, Server, QuietHandler).serve_forever()
