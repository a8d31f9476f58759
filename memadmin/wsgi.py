import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

application = get_wsgi_application()

# What setting Django up made (some 150,000 objects: modules, models, settings) lives as long
# as the process: kept out of the collector's full sweeps, which otherwise walk it all every
# thousand or so requests (90 ms each, about a twentieth of a memory page's time).
gc.freeze()
