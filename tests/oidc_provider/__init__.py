"""A real OpenID Connect provider for the tests: django-oauth-toolkit's, run in a process of
its own (serve.py) on 127.0.0.1 and a free port, with a store of its own."""
