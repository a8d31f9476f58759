"""The raw write statements share one column list (memories.writes.row_codec): a put-back
writes the whole row, so a field added to the model and not to the codec is caught here."""

from django.db.models import GeneratedField

from memories.models import Memory
from memories.writes import doors, imports, row_codec, undo


def _written_columns() -> list[str]:
    return [f.column for f in Memory._meta.concrete_fields if not isinstance(f, GeneratedField)]


def test_a_put_back_writes_every_column_of_the_model_in_its_order():
    assert list(undo.PUT_BACK_INSERT_COLUMNS) == _written_columns()


def test_every_statement_binds_the_columns_it_names():
    for sql, columns in (
        (doors.UPSERT, doors.UPSERT_COLUMNS),
        (doors.MOVE, doors.MOVE_COLUMNS),
        (imports.IMPORT_INSERT, imports.IMPORT_INSERT_COLUMNS),
        (imports.IMPORT_OVERWRITE, imports.IMPORT_OVERWRITE_COLUMNS),
        (undo.PUT_BACK_INSERT, undo.PUT_BACK_INSERT_COLUMNS),
        (undo.PUT_BACK_UPDATE, undo.PUT_BACK_UPDATE_COLUMNS),
    ):
        assert sql.count("%s") == len(columns), sql
        for column in columns:
            assert column in sql, (column, sql)


def test_the_lists_are_bound_as_json_text_as_written():
    given = {"description": "d", "body": "", "tags": ["日本"], "references": ["ü"]}
    row = row_codec.content({**given, "priority": 5, "load": "index", "source": ""})
    assert row_codec.bound(row, ("tags", "refs")) == ['["日本"]', '["ü"]']
