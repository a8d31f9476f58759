import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

application = get_wsgi_application()

# The URLconf imports every view and read; loaded here, Django's and the app's 130,000
# long-lived objects are then frozen out of the collector's full passes, each of which walked
# them all: 4 ms a request on average for the store-wide graph, whose 1,500 nodes promote
# thousands of short-lived objects to the oldest generation.
import_module(settings.ROOT_URLCONF)
gc.freeze()
