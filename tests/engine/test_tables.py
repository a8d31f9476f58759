"""The table names raw SQL uses (memories.engine.tables) are the models' own."""

import pytest

from memories import models
from memories.engine import tables
from projects.models import Project

MODELS = {
    "MEMORY_TABLE": models.Memory,
    "PROJECT_TABLE": Project,
    "REFERENCE_TABLE": models.Reference,
    "TAG_TABLE": models.Tag,
    "BAND_TALLY": models.BandTally,
    "TAG_TALLY": models.TagTally,
    "VERIFIED_TALLY": models.VerifiedTally,
    "TAG_VERIFIED_TALLY": models.TagVerifiedTally,
    "TAG_PAIR_TALLY": models.TagPairTally,
    "DANGLING_TALLY": models.DanglingTally,
    "DANGLING_TARGET": models.DanglingTarget,
    "DANGLING_TOTAL": models.DanglingTotal,
    "ORPHAN": models.Orphan,
    "ORPHAN_TALLY": models.OrphanTally,
    "WORDING": models.Wording,
    "WORDING_TALLY": models.WordingTally,
}


@pytest.mark.parametrize(("name", "model"), MODELS.items())
def test_each_name_is_its_models_table(name, model):
    assert getattr(tables, name) == model._meta.db_table


def test_every_name_has_its_model():
    named = {name for name in vars(tables) if name.isupper()}
    assert named == set(MODELS)
