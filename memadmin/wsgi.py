import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

application = get_wsgi_application()

# What setting Django up made and the URLconf imports (every view and read: some 130,000 to
# 150,000 objects, modules, models, settings) lives as long as the process: frozen out of the
# collector's full passes, each of which walked it all (90 ms every thousand or so requests;
# 4 ms a request on average for the store-wide graph, whose 1,500 nodes promote thousands of
# short-lived objects to the oldest generation).
import_module(settings.ROOT_URLCONF)
gc.freeze()
