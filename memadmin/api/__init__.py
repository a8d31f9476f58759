"""The JSON API under /v1: thin views over the doors and reads the pages use."""
