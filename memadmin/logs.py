"""The log's filters (settings.LOGGING)."""

import logging


class RefusalsOnOneLine(logging.Filter):
    """A request refused for what the client sent (a Host this server does not answer to, a
    body over the limit: Django's `django.security.*` records) is one line in the log, not
    a traceback: the traceback is Django's own code refusing it, and a client sending many
    would bury the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security."):
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
        return True
