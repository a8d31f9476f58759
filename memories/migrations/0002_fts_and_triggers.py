from django.db import migrations

from memories.engine import sqlite as sqlite_index


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]

    operations = [migrations.RunSQL(sqlite_index.FORWARD_SQL, sqlite_index.REVERSE_SQL)]
