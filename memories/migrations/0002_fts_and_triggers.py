from django.db import migrations

from memories import fts


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]

    operations = [migrations.RunSQL(fts.FORWARD_SQL, fts.REVERSE_SQL)]
