"""masakari-api, unchanged but for the timing of two host-failure notifications.

    python masakari_api_hold.py HOLD_DIR [masakari-api arguments...]

The `duplicate` scenario's two masakari-api processes (one per controller) run through
this. Masakari's own NotificationAPI checks a notification's host (not on maintenance)
and looks for a duplicate (same host, type and payload, new or running, generated within
duplicate_notification_detection_interval); only then does it store the notification
and cast it to an engine, whose flow sets the host on maintenance. Two monitors (or a
monitor and its retry) notifying at the same moment through two API processes can both
pass those checks before either notification is stored: with no [coordination]
backend_url nothing serialises them across processes.

On a loaded machine that window is milliseconds wide, so the scenario holds it open: each
of the first two COMPUTE_HOST notifications, once Masakari's checks have passed, waits
here (a file in HOLD_DIR per arrival) until the other one has passed them too, then both
go on (the later arrival a second later) to be stored and cast by Masakari's own code. Later notifications pass straight
through. Nothing else is changed; what is held and when is written to stderr (the
process's .out file in the scenario's work directory, not the bundle).
"""

import os
import sys
import time

HOLD_DIR = sys.argv.pop(1)
HOLD_FOR = 2  # requests that must have passed the checks before any goes on
TIMEOUT = 90  # seconds; after this the held request goes on alone
STAGGER = 1.0  # seconds between the two releases


def say(msg):
    sys.stderr.write("[hold %d %s] %s\n" % (os.getpid(), time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def main():
    # masakari.cmd first: it monkey-patches with eventlet before anything else is imported,
    # as the masakari-api console script does.
    from masakari.cmd import api as cmd_api
    from masakari.ha import api as ha_api
    from masakari.objects import fields

    checks = ha_api.NotificationAPI._is_duplicate_notification

    def is_duplicate_then_hold(context, notification):
        duplicate = checks(context, notification)
        if duplicate or notification.type != fields.NotificationType.COMPUTE_HOST:
            return duplicate
        os.makedirs(HOLD_DIR, exist_ok=True)
        if len(os.listdir(HOLD_DIR)) >= HOLD_FOR:
            return duplicate
        mine = os.path.join(HOLD_DIR, "%.6f-%d" % (time.time(), os.getpid()))
        open(mine, "w").close()
        say("notification of host uuid %s generated %s passed Masakari's checks; holding"
            % (notification.source_host_uuid, notification.generated_time))
        deadline = time.time() + TIMEOUT
        while len(os.listdir(HOLD_DIR)) < HOLD_FOR:
            if time.time() > deadline:
                say("no second notification within %d s; going on" % TIMEOUT)
                return duplicate
            time.sleep(0.05)  # eventlet's sleep: the process serves other requests
        arrivals = sorted(os.listdir(HOLD_DIR))
        if os.path.basename(mine) != arrivals[0]:
            # The later arrival goes on a second after the first: the two engines then do
            # not write their `running` status to the shared sqlite in the same instant
            # (`database is locked`, an artefact of sqlite, not of Masakari).
            time.sleep(STAGGER)
        say("released (%s)" % ", ".join(arrivals))
        return duplicate

    ha_api.NotificationAPI._is_duplicate_notification = staticmethod(is_duplicate_then_hold)
    sys.argv[0] = "masakari-api"
    return cmd_api.main()


if __name__ == "__main__":
    sys.exit(main())
