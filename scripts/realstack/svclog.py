"""Route one process's oslo.log output to one file per (host, service).

All Nova services of nova_cloud.py share one process. Each thread carries the tag of the
service that created it (threads inherit their creator's tag; work handed to a thread
pool runs under the submitter's tag), and a logging handler writes each record to
<bundle>/<host>/var/log/nova/<service>.log with oslo.log's own formatter. Records with no
service (set-up, the test base, Nova's stand-ins for Cinder and Neutron) go to <bundle>/../nova-untagged.log, outside the bundle.
"""

import concurrent.futures
import logging
import os
import threading

_tls = threading.local()


def tag(host, service):
    _tls.tag = (host, service) if host else None


def current():
    return getattr(_tls, "tag", None)


def _wrap(fn, t):
    def run(*a, **k):
        old = current()
        _tls.tag = t
        try:
            return fn(*a, **k)
        finally:
            _tls.tag = old

    return run


def _patch_threads():
    orig_init = threading.Thread.__init__

    def init(self, *a, **k):
        orig_init(self, *a, **k)
        t = current()
        if t is not None:
            self.run = _wrap(self.run, t)

    threading.Thread.__init__ = init

    def patch_submit(cls):
        orig = cls.submit

        def submit(self, fn, *a, **k):
            t = current()
            return orig(self, _wrap(fn, t) if t is not None else fn, *a, **k)

        cls.submit = submit

    patch_submit(concurrent.futures.ThreadPoolExecutor)
    try:
        import futurist

        patch_submit(futurist.ThreadPoolExecutor)
    except ImportError:
        pass


class Router(logging.Handler):
    def __init__(self, bundle, formatter):
        super().__init__()
        self.bundle = bundle
        self.files = {}
        self.lock_files = threading.Lock()
        self.setFormatter(formatter)

    def stream_for(self, t):
        with self.lock_files:
            f = self.files.get(t)
            if f is None:
                if t is None:
                    path = os.path.join(os.path.dirname(self.bundle.rstrip("/")), "nova-untagged.log")
                else:
                    host, service = t
                    path = os.path.join(self.bundle, host, "var", "log", "nova", service + ".log")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                f = open(path, "a", buffering=1, encoding="utf-8")
                self.files[t] = f
            return f

    def emit(self, record):
        try:
            t = current()
            if record.name.startswith("placement"):
                t = ("ctl1", "placement-api")
            elif record.name.startswith("nova.tests"):
                t = None  # Nova's test stand-ins (Cinder, Neutron): no real service logs these

            msg = self.format(record)
            self.stream_for(t).write(msg + "\n")
        except Exception:
            self.handleError(record)


def install(bundle, conf):
    """Replace the root handlers (the test base's) with the router."""
    from oslo_log import formatters

    _patch_threads()
    fmt = formatters.ContextFormatter(project="nova", version="34.0.0", config=conf,
                                      datefmt="%Y-%m-%d %H:%M:%S")
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(Router(bundle, fmt))
    root.setLevel(logging.INFO)
    for noisy in ("oslo.messaging", "oslo_messaging", "stevedore", "urllib3", "keystoneauth",
                  "migrate", "alembic", "oslo_policy", "oslo_concurrency"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
