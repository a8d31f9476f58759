from django.urls import path

from memadmin.pages.history import views as history_pages
from memadmin.pages.memories import columns, detail, listing, tiers

app_name = "memories"

# A memory's page is /memories/<name>/ as its API route is /v1/memories/<name>; the page's
# own routes start with "_", which no memory name can.
urlpatterns = [
    path("", listing.memory_list, name="list"),
    path("_bulk/", listing.memory_bulk, name="bulk"),
    path("_columns/", columns.memory_columns, name="columns"),
    path("_facets/", listing.memory_facets, name="facets"),
    path("_months/", listing.memory_months, name="months"),
    path("_new/", detail.memory_new, name="new"),
    path("_agent/", tiers.tier_view, name="tiers"),
    path("<str:name>/", detail.memory_detail, name="detail"),
    path("<str:name>/row/", listing.memory_row, name="row"),
    path("<str:name>/delete/", detail.memory_delete, name="delete"),
    path("<str:name>/supersede/", detail.memory_supersede, name="supersede"),
    path("<str:name>/history/", history_pages.memory_history, name="history"),
]
