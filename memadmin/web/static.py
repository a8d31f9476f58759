"""The static files' storage: collectstatic's hashed, compressed copies once it has run, the
files as they are in the checkout before."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Without a manifest (collectstatic not run yet) a page links each file by its own name,
    which WhiteNoise then serves from the source folders (settings.WHITENOISE_USE_FINDERS),
    rather than every page failing on the missing manifest entry."""

    def stored_name(self, name):
        if not self.hashed_files:
            return name
        return super().stored_name(name)
