"""The static files' storage: collectstatic's hashed, compressed copies once it has run, the
files as they are in the checkout before."""

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Without a manifest (collectstatic not run yet) a page links each file by its own name,
    which WhiteNoise then serves from the source folders (settings.WHITENOISE_USE_FINDERS),
    rather than every page failing on the missing manifest entry.

    A file's address is the same for as long as its manifest is: it is worked out once per
    process (a memory's page draws seven: bench/results/2026-12-01-detail-5)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._urls = (self.hashed_files, {})

    def stored_name(self, name):
        if not self.hashed_files:
            return name
        return super().stored_name(name)

    def url(self, name, force=False):
        if force:
            return super().url(name, force)
        manifest, urls = self._urls
        if manifest is not self.hashed_files:  # collectstatic made a new manifest meanwhile
            manifest, urls = self._urls = (self.hashed_files, {})
        key = (name, settings.DEBUG)  # DEBUG links the files by their own names
        found = urls.get(key)
        if found is None:
            found = urls[key] = super().url(name)
        return found


def addresses_key() -> tuple:
    """What every static file's address follows: the manifest collectstatic wrote (its hash,
    empty before it has run) and DEBUG. A fragment drawn once with static links keys on it."""
    return (getattr(staticfiles_storage, "manifest_hash", ""), settings.DEBUG)
