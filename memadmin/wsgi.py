import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

application = get_wsgi_application()

# What setting Django up made and the URLconf imports (every view and read: its objects,
# modules, models, settings) lives as long as the process: frozen out of the collector's full
# passes, each of which walked it all (most often for the store-wide graph, whose nodes
# promote thousands of short-lived objects to the oldest generation;
# bench/results/2026-12-01-graph-6, bench/results/2026-12-01-detail-6).
import_module(settings.ROOT_URLCONF)
gc.freeze()
