"""Forms of the Snapshots page: the zip to preview, and the previewed upload to import.
The zip itself is read and checked by the snapshot format (memories.writes.snapshot)."""

from django import forms


class PreviewForm(forms.Form):
    # Required in the view, with its own sentence; an empty file is the format's to refuse.
    snapshot = forms.FileField(required=False, allow_empty_file=True)
    force = forms.BooleanField(required=False)


class ImportForm(forms.Form):
    token = forms.CharField(required=False, strip=False)
    force = forms.BooleanField(required=False)
