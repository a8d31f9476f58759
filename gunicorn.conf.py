"""gunicorn's settings for memadmin. gunicorn reads ./gunicorn.conf.py when started from the
checkout, so `gunicorn memadmin.wsgi` (the design's command, scripts/run.sh and the tests)
serves this way: memadmin.serving says why."""

import os

from memadmin.env import env_int

wsgi_app = "memadmin.wsgi"
bind = os.environ.get("MEMADMIN_BIND", "127.0.0.1:8000")
worker_class = "memadmin.serving.Worker"
workers = env_int("MEMADMIN_WORKERS", 2, minimum=1)
threads = env_int("MEMADMIN_THREADS", 32, minimum=1)
# An idle kept-alive connection waits on the poller, not on a thread; it is closed after this.
keepalive = 5
accesslog = "-"
control_socket_disable = True  # several servers (tests, the benchmark) run side by side
